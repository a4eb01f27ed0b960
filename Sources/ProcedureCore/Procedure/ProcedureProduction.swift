extension Procedure {
    /// Adds `procedure` to the queue this procedure is on, as ProcedureKit's `produce` does: a
    /// running procedure discovers further work (a page to fetch, a file to copy) and hands it on.
    ///
    /// Observers hear ``ProcedureObserver/procedure(_:didProduce:)`` before it is added. In a
    /// ``GroupProcedure`` the produced procedure becomes a child, so the group waits for it.
    /// The produced procedure is independent: add a dependency yourself if something must wait
    /// for it.
    ///
    /// - Throws: ``ProcedureError/Code/misuse`` when this procedure is not on a queue or has
    ///   finished (nothing is added).
    public final func produce(_ procedure: Procedure) throws(ProcedureError) {
        let (phase, queue, observers) = storage.withLock { ($0.state, $0.queue, $0.observers) }
        guard let queue, phase < .finishing else {
            let detail = "produce(\(procedure.name)) called while \(phase), not on a queue: nothing was added"
            throw ProcedureError.misuse(name, detail)
        }
        ProcedureLog.debug(self, on: queue, "produced '\(procedure.name)'")
        for observer in observers { observer.procedure(self, didProduce: procedure) }
        if let group = queue.group {
            group.addChild(procedure)
        } else {
            queue.addProcedure(procedure)
        }
    }
}
