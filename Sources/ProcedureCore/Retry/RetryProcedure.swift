import Synchronization

/// Runs a fresh attempt until one succeeds, at most `maxAttempts` times, waiting between
/// attempts. Its output is the successful attempt's; its error, the last attempt's.
public final class RetryProcedure<Output: Sendable>: ResultProcedure<Output>, @unchecked Sendable {
    private let makeAttempt: @Sendable (Int) -> ResultProcedure<Output>
    private let maxAttempts: Int
    private let wait: WaitStrategy
    private let handler: AttemptDriver.Handler?
    private let driver = Mutex<AttemptDriver?>(nil)

    /// Creates a retrying procedure.
    /// - Parameters:
    ///   - maxAttempts: Attempts at most, the first included (at least 1).
    ///   - wait: The wait before each retry.
    ///   - handler: Told about each failed attempt, with the next attempt to configure;
    ///     returns whether and when to retry.
    ///   - makeAttempt: Makes the procedure for attempt number 1, 2, ...
    public init(
        name: String? = nil,
        maxAttempts: Int,
        wait: WaitStrategy = .immediate,
        handler: (@Sendable (_ failed: AttemptOutcome, _ next: Procedure) -> NextAttempt)? = nil,
        makeAttempt: @escaping @Sendable (_ attempt: Int) -> ResultProcedure<Output>
    ) {
        self.makeAttempt = makeAttempt
        self.maxAttempts = max(1, maxAttempts)
        self.wait = wait
        self.handler = handler
        super.init(name: name)
    }

    public override func execute() {
        guard isExecuting else { return }
        let driver = AttemptDriver(
            maxAttempts: maxAttempts, wait: wait, makeAttempt: makeAttempt,
            wantsAnother: { $0.error != nil }, handler: handler,
            onDone: { [self] last in
                switch (last as? ResultProcedure<Output>)?.output {
                case .success(let value): finish(returning: value)
                case .failure(let error): finish(throwing: error)
                case nil: finish(with: last?.error)
                }
            })
        self.driver.withLock { $0 = driver }
        if isCancelled { driver.cancel() } else { driver.start(owner: self) }
    }

    public override func didCancel(with error: (any Error)?) {
        driver.withLock { $0 }?.cancel()
    }

    override func releaseWorkBody() {
        driver.withLock { $0 = nil }
    }
}
