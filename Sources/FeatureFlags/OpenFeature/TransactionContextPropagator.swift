/// How a transaction's evaluation context travels with the work of one request or job
/// (OpenFeature's transaction context propagator, 3.3), set with
/// ``OpenFeatureAPI/setTransactionContextPropagator(_:)``.
///
/// ```swift
/// api.setTransactionContextPropagator(TaskLocalTransactionContextPropagator())
/// api.withTransactionContext(FlagEvaluationContext(targetingKey: userID)) {
///     print(api.transactionContext?.targetingKey ?? "none")  // user-42
/// }
/// ```
public protocol TransactionContextPropagator: Sendable {
    /// The current transaction's context, or nil outside one.
    func currentContext() -> FlagEvaluationContext?
    /// Runs `operation` with `context` as the transaction's.
    func withContext<Result>(
        _ context: FlagEvaluationContext, isolation: isolated (any Actor)?, operation: () async throws -> Result
    ) async rethrows -> Result
    /// Runs synchronous `operation` with `context` as the transaction's.
    func withContext<Result>(_ context: FlagEvaluationContext, operation: () throws -> Result) rethrows -> Result
}

/// The default propagator: the transaction's context is a task-local value, so it follows the
/// task that set it and the child tasks it starts, and nothing else.
///
/// ```swift
/// let propagator = TaskLocalTransactionContextPropagator()
/// propagator.withContext(FlagEvaluationContext(targetingKey: userID)) {
///     print(propagator.currentContext()?.targetingKey ?? "none")
/// }
/// ```
public struct TaskLocalTransactionContextPropagator: TransactionContextPropagator {
    @TaskLocal private static var context: FlagEvaluationContext?

    /// The propagator (every instance shares the one task-local value).
    public init() {}

    public func currentContext() -> FlagEvaluationContext? { Self.context }

    public func withContext<Result>(
        _ context: FlagEvaluationContext, isolation: isolated (any Actor)?, operation: () async throws -> Result
    ) async rethrows -> Result {
        try await Self.$context.withValue(context, operation: operation, isolation: isolation)
    }

    public func withContext<Result>(_ context: FlagEvaluationContext, operation: () throws -> Result) rethrows
        -> Result
    {
        try Self.$context.withValue(context, operation: operation)
    }
}
