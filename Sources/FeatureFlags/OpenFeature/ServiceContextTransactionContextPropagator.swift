public import ServiceContextModule

/// A propagator that carries the transaction's evaluation context in swift-service-context's
/// `ServiceContext`, the context Swift's server libraries already hand from a request to the work
/// it causes (swift-distributed-tracing's spans, Hummingbird's and Vapor's request handling,
/// swift-log's metadata providers). A context set here is in `ServiceContext.current` for every
/// library to read, and a `ServiceContext` another library restores brings the flags' context
/// along with it.
///
/// ```swift
/// import ServiceContextModule
///
/// OpenFeatureAPI.shared.setTransactionContextPropagator(ServiceContextTransactionContextPropagator())
/// OpenFeatureAPI.shared.withTransactionContext(FlagEvaluationContext(targetingKey: userID)) {
///     print(ServiceContext.current?.flagEvaluationContext?.targetingKey ?? "none")  // user-42
/// }
/// ```
public struct ServiceContextTransactionContextPropagator: TransactionContextPropagator {
    /// The propagator (every instance reads and writes the same `ServiceContext` key).
    public init() {}

    public func currentContext() -> FlagEvaluationContext? {
        ServiceContext.current?.flagEvaluationContext
    }

    public func withContext<Result>(
        _ context: FlagEvaluationContext, isolation: isolated (any Actor)?, operation: () async throws -> Result
    ) async rethrows -> Result {
        var serviceContext = ServiceContext.current ?? .topLevel
        serviceContext.flagEvaluationContext = context
        return try await ServiceContext.withValue(serviceContext, isolation: isolation, operation: operation)
    }

    public func withContext<Result>(_ context: FlagEvaluationContext, operation: () throws -> Result) rethrows
        -> Result
    {
        var serviceContext = ServiceContext.current ?? .topLevel
        serviceContext.flagEvaluationContext = context
        return try ServiceContext.withValue(serviceContext, operation: operation)
    }
}

/// The `ServiceContext` key of a transaction's flag evaluation context.
private enum FlagEvaluationContextKey: ServiceContextKey {
    typealias Value = FlagEvaluationContext
    static var nameOverride: String? { "openfeature.transaction-context" }
}

extension ServiceContext {
    /// The flag evaluation context of the transaction this service context belongs to, as
    /// ``ServiceContextTransactionContextPropagator`` keeps it.
    public var flagEvaluationContext: FlagEvaluationContext? {
        get { self[FlagEvaluationContextKey.self] }
        set { self[FlagEvaluationContextKey.self] = newValue }
    }
}
