import Synchronization

/// A procedure that finishes after a delay, without blocking a thread. Cancelling it
/// finishes it at once. Make it a dependency to delay other work.
public final class DelayProcedure: Procedure, @unchecked Sendable {
    /// How long it waits once executing.
    public let delay: Duration
    private let timer = Mutex<OneShotTimer?>(nil)

    /// Creates a delay of `delay` (zero or negative: none).
    public init(name: String? = nil, _ delay: Duration) {
        self.delay = delay
        super.init(name: name)
    }

    public override func execute() {
        guard isExecuting else { return }
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

    override func releaseWorkBody() {
        timer.withLock { timer in
            timer?.cancel()
            timer = nil
        }
    }
}
