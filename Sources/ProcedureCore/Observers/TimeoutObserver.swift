import Synchronization

/// Cancels a procedure with ``ProcedureError/timedOut(after:)`` if it is still running
/// `limit` after it started executing. The clock starts at will-execute.
public final class TimeoutObserver: ProcedureObserver, @unchecked Sendable {
    /// How long a procedure may run.
    public let limit: Duration
    private let timers = Mutex<[ObjectIdentifier: OneShotTimer]>([:])

    /// Creates an observer with the given limit.
    public init(limit: Duration) {
        self.limit = limit
    }

    public func procedureWillExecute(_ procedure: Procedure) {
        let limit = limit
        let timer = OneShotTimer(after: limit) { [weak procedure] in
            procedure?.cancel(with: ProcedureError.timedOut(after: limit))
        }
        timers.withLock { $0[ObjectIdentifier(procedure)] = timer }
    }

    public func procedureWillFinish(_ procedure: Procedure, error: (any Error)?) {
        timers.withLock { $0.removeValue(forKey: ObjectIdentifier(procedure)) }?.cancel()
    }
}
