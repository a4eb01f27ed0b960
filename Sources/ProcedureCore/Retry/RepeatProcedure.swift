import Locking

/// Runs a fresh procedure per iteration, one after another, waiting between iterations,
/// until `maxCount` iterations ran, `makeIteration` returns nil, or the handler stops it.
/// Its error is the last iteration's; its ``Procedure/progress``, the current iteration's. Iterations are any
/// procedure type; the handler sees them as that type.
///
/// ```swift
/// // Polls five times, a minute apart.
/// let poll = RepeatProcedure(name: "poll", maxCount: 5, wait: .constant(.seconds(60))) { iteration in
///     BlockProcedure(name: "poll \(iteration)") { print("polling") }
/// }
/// queue.addProcedure(poll)
/// ```
// Sendable by hand, as `Procedure`: Sendable `let`s, and the attempt driver behind a lock.
public final class RepeatProcedure: Procedure, @unchecked Sendable {
    private let makeIteration: @Sendable (Int) -> Procedure?
    private let maxCount: Int?
    private let wait: WaitStrategy
    private let handler: AttemptDriver.Handler?
    private let driver = Lock<AttemptDriver?>(nil)

    /// Creates a repeating procedure.
    /// - Parameters:
    ///   - name: A name for messages and explanations.
    ///   - maxCount: Iterations at most, or nil for no limit.
    ///   - wait: The wait before each repetition.
    ///   - handler: Told about each iteration, with the next one to configure; returns
    ///     whether and when to go on.
    ///   - makeIteration: Makes the procedure for iteration 1, 2, ..., or nil to stop.
    public init<Iteration: Procedure>(
        name: String? = nil,
        maxCount: Int? = nil,
        wait: WaitStrategy = .immediate,
        handler: (@Sendable (_ finished: AttemptOutcome<Iteration>, _ next: Iteration) -> NextAttempt)? = nil,
        makeIteration: @escaping @Sendable (_ iteration: Int) -> Iteration?
    ) {
        self.makeIteration = { makeIteration($0) }
        self.maxCount = maxCount.map { max(1, $0) }
        self.wait = wait
        self.handler = AttemptDriver.erase(handler)
        super.init(name: name)
    }

    public override func execute() {
        guard isExecuting else { return }
        let driver = AttemptDriver(
            maxAttempts: maxCount, wait: wait, makeAttempt: makeIteration,
            wantsAnother: { _ in true }, handler: handler,
            onDone: { [self] last in finish(with: last?.error) })
        self.driver.withLock { $0 = driver }
        if isCancelled { driver.cancel() } else { driver.start(owner: self) }
    }

    public override func didCancel(with error: (any Error)?) {
        driver.withLock { $0 }?.cancel()
    }

    override func releaseWorkBody(executed: Bool) {
        driver.withLock { $0 = nil }
    }
}
