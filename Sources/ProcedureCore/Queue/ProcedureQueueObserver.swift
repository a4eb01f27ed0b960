/// Hears about procedures being added to a queue and finishing on it.
///
/// Methods are called outside the queue's locks, on whichever thread added or finished the
/// procedure. Both have empty default implementations.
public protocol ProcedureQueueObserver: Sendable {
    /// Called before `procedure` is added. It may still be configured here.
    func queue(_ queue: ProcedureQueue, willAdd procedure: Procedure)
    /// Called after `procedure` finished, before it leaves the queue's unfinished count.
    func queue(_ queue: ProcedureQueue, didFinish procedure: Procedure)
}

extension ProcedureQueueObserver {
    public func queue(_ queue: ProcedureQueue, willAdd procedure: Procedure) {}
    public func queue(_ queue: ProcedureQueue, didFinish procedure: Procedure) {}
}
