import Synchronization

/// An observer added with ``Procedure/addRemovableObserver(_:)``: after ``remove()`` it hears
/// no further event. An event being delivered while it is removed may still arrive.
public final class ObserverRegistration: Sendable {
    private let removed = Atomic<Bool>(false)

    init() {}

    /// Stops the observer's events.
    public func remove() { removed.store(true, ordering: .releasing) }

    /// Whether ``remove()`` was called.
    public var isRemoved: Bool { removed.load(ordering: .acquiring) }
}

/// Passes events on until its registration is removed; the procedure lets go of it when it finishes.
private struct RemovableObserver: ProcedureObserver {
    let inner: any ProcedureObserver
    let registration: ObserverRegistration

    func procedureWillExecute(_ procedure: Procedure) {
        if !registration.isRemoved { inner.procedureWillExecute(procedure) }
    }

    func procedureDidCancel(_ procedure: Procedure, error: (any Error)?) {
        if !registration.isRemoved { inner.procedureDidCancel(procedure, error: error) }
    }

    func procedure(_ procedure: Procedure, didProduce dependency: Procedure) {
        if !registration.isRemoved { inner.procedure(procedure, didProduce: dependency) }
    }

    func procedureWillFinish(_ procedure: Procedure, error: (any Error)?) {
        if !registration.isRemoved { inner.procedureWillFinish(procedure, error: error) }
    }

    func procedureDidFinish(_ procedure: Procedure, error: (any Error)?) {
        if !registration.isRemoved { inner.procedureDidFinish(procedure, error: error) }
    }

    func procedure(_ procedure: Procedure, didReportProgress progress: ProcedureProgress) {
        if !registration.isRemoved { inner.procedure(procedure, didReportProgress: progress) }
    }
}

extension Procedure {
    /// Adds an observer that can be removed later: keep the registration and call
    /// ``ObserverRegistration/remove()``. ``addObserver(_:)`` costs less for observers kept for good.
    @discardableResult
    public final func addRemovableObserver(_ observer: any ProcedureObserver) -> ObserverRegistration {
        let registration = ObserverRegistration()
        addObserver(RemovableObserver(inner: observer, registration: registration))
        return registration
    }
}
