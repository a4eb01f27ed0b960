import Locking

/// A procedure that finishes after a delay, without blocking a thread. Cancelling it
/// finishes it at once. Make it a dependency to delay other work.
///
/// ```swift
/// let pause = DelayProcedure(name: "settle", .seconds(5))
/// export.addDependency(pause)  // the export starts five seconds after the pause is enqueued
/// queue.addProcedures([pause, export])
/// ```
public final class DelayProcedure: Procedure, @unchecked Sendable {
    /// How long it waits once executing; for a deadline, the time from creation to the deadline.
    public let delay: Duration
    /// The point in time it waits for, if one was given.
    public let deadline: ContinuousClock.Instant?
    private let timer = Lock<OneShotTimer?>(nil)

    /// Creates a delay of `delay` (zero or negative: none).
    public init(name: String? = nil, _ delay: Duration) {
        self.delay = delay
        deadline = nil
        super.init(name: name)
    }

    /// Creates a delay that ends at `deadline`, whenever it starts executing (past: at once).
    public init(name: String? = nil, until deadline: ContinuousClock.Instant) {
        self.deadline = deadline
        delay = ContinuousClock.now.duration(to: deadline)
        super.init(name: name)
    }

    public override func execute() {
        guard isExecuting else { return }
        let delay = deadline.map { ContinuousClock.now.duration(to: $0) } ?? delay
        guard delay > .zero else {
            finish()
            return
        }
        let timer = OneShotTimer(after: delay) { [weak self] in self?.finish() }
        self.timer.withLock { $0 = timer }
        if isCancelled { finish() }
    }

    public override func didCancel(with error: (any Error)?) {
        finish()
    }

    override func releaseWorkBody(executed: Bool) {
        timer.withLock { timer in
            timer?.cancel()
            timer = nil
        }
    }
}
