import Synchronization

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
    /// How many transactions are open in the process: while none is, an evaluation skips the
    /// task-local lookup (about a tenth of an evaluation through a client).
    private static let openTransactions = Atomic<Int>(0)

    /// The propagator (every instance shares the one task-local value).
    public init() {}

    public func currentContext() -> FlagEvaluationContext? {
        // A scope of this task is counted before its value is bound, so it is never missed here.
        guard Self.openTransactions.load(ordering: .relaxed) > 0 else { return nil }
        return Self.context
    }

    public func withContext<Result>(
        _ context: FlagEvaluationContext, isolation: isolated (any Actor)?, operation: () async throws -> Result
    ) async rethrows -> Result {
        Self.openTransactions.add(1, ordering: .relaxed)
        defer { Self.openTransactions.subtract(1, ordering: .relaxed) }
        return try await Self.$context.withValue(context, operation: operation, isolation: isolation)
    }

    public func withContext<Result>(_ context: FlagEvaluationContext, operation: () throws -> Result) rethrows
        -> Result
    {
        Self.openTransactions.add(1, ordering: .relaxed)
        defer { Self.openTransactions.subtract(1, ordering: .relaxed) }
        return try Self.$context.withValue(context, operation: operation)
    }
}
