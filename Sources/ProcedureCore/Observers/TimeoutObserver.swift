import Locking

/// Cancels a procedure with ``ProcedureError/timedOut(after:)`` if it is still running
/// `limit` after it started executing (the clock starts at will-execute), or at a deadline.
///
/// ```swift
/// export.addObserver(TimeoutObserver(limit: .seconds(30)))  // cancelled with .timedOut after 30 s
/// ```
public final class TimeoutObserver: ProcedureObserver, @unchecked Sendable {
    /// How long a procedure may run; for a deadline, the time from creation to the deadline.
    public let limit: Duration
    /// The point in time by which the procedure must have finished, if one was given.
    public let deadline: ContinuousClock.Instant?
    private let timers = Lock<[ObjectIdentifier: OneShotTimer]>([:])

    /// Creates an observer with the given limit.
    public init(limit: Duration) {
        self.limit = limit
        deadline = nil
    }

    /// Creates an observer that cancels a procedure still running at `deadline` (at once when it
    /// starts after the deadline).
    public init(deadline: ContinuousClock.Instant) {
        self.deadline = deadline
        limit = ContinuousClock.now.duration(to: deadline)
    }

    public func procedureWillExecute(_ procedure: Procedure) {
        let limit = deadline.map { ContinuousClock.now.duration(to: $0) } ?? limit
        let timer = OneShotTimer(after: limit) { [weak procedure] in
            procedure?.cancel(with: ProcedureError.timedOut(after: limit))
        }
        timers.withLock { $0[ObjectIdentifier(procedure)] = timer }
    }

    public func procedureWillFinish(_ procedure: Procedure, error: (any Error)?) {
        timers.withLock { $0.removeValue(forKey: ObjectIdentifier(procedure)) }?.cancel()
    }
}
