/// Hears a procedure's lifecycle events.
///
/// Each event is delivered at most once per observer and procedure, outside the procedure's
/// lock, on the thread where it happened. Every method has an empty default implementation.
public protocol ProcedureObserver: Sendable {
    /// The queue is about to call the work body.
    func procedureWillExecute(_ procedure: Procedure)
    /// The procedure was cancelled, with an optional reason.
    func procedureDidCancel(_ procedure: Procedure, error: (any Error)?)
    /// The procedure produced another procedure: a dependency one of its conditions needs (an
    /// authorization request, say) or one it handed to ``Procedure/produce(_:)``.
    func procedure(_ procedure: Procedure, didProduce dependency: Procedure)
    /// The procedure is finishing with `error` (nil on success).
    func procedureWillFinish(_ procedure: Procedure, error: (any Error)?)
    /// The procedure finished with `error` (nil on success).
    func procedureDidFinish(_ procedure: Procedure, error: (any Error)?)
    /// The procedure reported progress (its own, or for a group its children's added up), on
    /// the reporting thread. Reports from one thread arrive in the order they were made.
    func procedure(_ procedure: Procedure, didReportProgress progress: ProcedureProgress)
}

extension ProcedureObserver {
    public func procedureWillExecute(_ procedure: Procedure) {}
    public func procedureDidCancel(_ procedure: Procedure, error: (any Error)?) {}
    public func procedure(_ procedure: Procedure, didProduce dependency: Procedure) {}
    public func procedureWillFinish(_ procedure: Procedure, error: (any Error)?) {}
    public func procedureDidFinish(_ procedure: Procedure, error: (any Error)?) {}
    public func procedure(_ procedure: Procedure, didReportProgress progress: ProcedureProgress) {}
}
