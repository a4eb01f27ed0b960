/// Fails, naming them, when any of the procedure's own dependencies finished with an error
/// without being cancelled. A cancelled dependency, a vetoed one among them (cancelled, with the
/// conditions' error), is ``NoCancelledDependencies``' to judge, so with both a veto is reported
/// once. Dependencies produced by conditions are not checked.
///
/// ```swift
/// let report = BlockProcedure(name: "report") { print("exported") }
/// report.addDependency(export)
/// report.addCondition(NoFailedDependencies())  // runs only if the export succeeded
/// queue.addProcedures([export, report])
/// ```
public struct NoFailedDependencies: SynchronousCondition {
    /// Creates the condition.
    public init() {}

    public var name: String { "NoFailedDependencies" }

    public func evaluate(for procedure: Procedure, context: ConditionContext) -> ConditionResult {
        let failed = procedure.dependencies.compactMap { dependency -> String? in
            guard !dependency.isCancelled, let error = dependency.error else { return nil }
            return "\(dependency.name) (\(error))"
        }
        if failed.isEmpty { return .satisfied("no dependency failed") }
        return .failed("failed dependencies: " + failed.joined(separator: ", "))
    }
}

/// Fails, naming them, when any of the procedure's own dependencies was cancelled, vetoed by its
/// conditions included. Dependencies produced by conditions are not checked.
///
/// ```swift
/// let cleanUp = BlockProcedure(name: "clean up") {}
/// cleanUp.addDependency(export)
/// cleanUp.addCondition(NoCancelledDependencies())  // skipped if the export was cancelled
/// queue.addProcedures([export, cleanUp])
/// ```
public struct NoCancelledDependencies: SynchronousCondition {
    /// Creates the condition.
    public init() {}

    public var name: String { "NoCancelledDependencies" }

    public func evaluate(for procedure: Procedure, context: ConditionContext) -> ConditionResult {
        let cancelled = procedure.dependencies.filter(\.isCancelled).map(\.name)
        if cancelled.isEmpty { return .satisfied("no dependency was cancelled") }
        return .failed("cancelled dependencies: " + cancelled.joined(separator: ", "))
    }
}
