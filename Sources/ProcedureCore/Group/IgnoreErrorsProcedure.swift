/// Runs a procedure and succeeds whether or not it failed, as ProcedureKit's
/// `IgnoreErrorsProcedure`: for a step whose failure must not fail what depends on it (a cache
/// warm-up, a best-effort notification).
///
/// The wrapped procedure's own `error` still tells what happened; only this wrapper and its
/// dependents see success. A cancelled wrapper is still cancelled.
///
/// ```swift
/// let warmUp = IgnoreErrorsProcedure(AsyncProcedure { try await warmUpCache() })
/// let serve = BlockProcedure { startServing() }
/// serve.addDependency(warmUp)
/// serve.addCondition(NoFailedDependencies())   // holds even when the warm-up failed
/// ```
// Sendable by hand, as `GroupProcedure`.
public final class IgnoreErrorsProcedure: GroupProcedure, @unchecked Sendable {
    /// The procedure whose errors are ignored.
    public let procedure: Procedure

    /// Wraps `procedure`, which runs as the wrapper's one child.
    public init(_ procedure: Procedure, name: String? = nil) {
        self.procedure = procedure
        super.init(name: name ?? "IgnoreErrors(\(procedure.name))", children: [procedure]) { _, _ in .ignore }
    }
}
