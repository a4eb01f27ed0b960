import Locking

/// Runs a fresh attempt until one succeeds, at most `maxAttempts` times, waiting between
/// attempts. Its output is the successful attempt's; its error, the last attempt's; its
/// ``Procedure/progress``, the current attempt's (a new attempt reports from its own start).
///
/// Attempts are whatever the factory makes: ``ResultProcedure`` subclasses (an ``AsyncProcedure``)
/// for a typed output, or any procedure (a ``BlockProcedure``) for a `RetryProcedure<Void>`. The
/// handler sees attempts as that type.
///
/// ```swift
/// let size = RetryProcedure<Int>(name: "size", maxAttempts: 3, wait: .constant(.seconds(1))) { attempt in
///     AsyncProcedure { try await fetchSize(of: urls[0]) }
/// }
/// queue.addProcedure(size)
/// print(try await size.value())
/// ```
public final class RetryProcedure<Output: Sendable>: ResultProcedure<Output>, @unchecked Sendable {
    private let makeAttempt: @Sendable (Int) -> Procedure
    private let maxAttempts: Int
    private let wait: WaitStrategy
    private let handler: AttemptDriver.Handler?
    private let driver = Lock<AttemptDriver?>(nil)

    /// Creates a retrying procedure whose attempts produce its output.
    /// - Parameters:
    ///   - name: A name for messages and explanations.
    ///   - maxAttempts: Attempts at most, the first included (at least 1).
    ///   - wait: The wait before each retry.
    ///   - handler: Told about each failed attempt that has a next one, with that next attempt to
    ///     configure; returns whether and when to retry. Not called after the last allowed attempt
    ///     (there is nothing left to configure): the retry then fails with that attempt's error,
    ///     which its observers and ``ResultProcedure/value()`` see.
    ///   - makeAttempt: Makes the procedure for attempt number 1, 2, ...
    public convenience init<Attempt: ResultProcedure<Output>>(
        name: String? = nil,
        maxAttempts: Int,
        wait: WaitStrategy = .immediate,
        handler: (@Sendable (_ failed: AttemptOutcome<Attempt>, _ next: Attempt) -> NextAttempt)? = nil,
        makeAttempt: @escaping @Sendable (_ attempt: Int) -> Attempt
    ) {
        self.init(name: name, maxAttempts: maxAttempts, wait: wait, erasedHandler: AttemptDriver.erase(handler)) {
            makeAttempt($0)
        }
    }

    init(
        name: String?, maxAttempts: Int, wait: WaitStrategy, erasedHandler: AttemptDriver.Handler?,
        makeAttempt: @escaping @Sendable (Int) -> Procedure
    ) {
        self.makeAttempt = makeAttempt
        self.maxAttempts = max(1, maxAttempts)
        self.wait = wait
        self.handler = erasedHandler
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
                case nil:
                    if let error = last?.error {
                        finish(throwing: error)
                    } else if let done = () as? Output, last != nil {
                        // An attempt that is not a result procedure succeeded: a Void retry's output.
                        finish(returning: done)
                    } else {
                        finish()
                    }
                }
            })
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

extension RetryProcedure {
    /// Creates a retrying procedure whose attempts take `dependency`'s output, as a step of a
    /// workflow does: the retry depends on `dependency`, and if that fails or is cancelled the
    /// retry is cancelled with ``ProcedureError/inputUnavailable(from:reason:)`` and makes no attempt.
    ///
    /// ```swift
    /// let download = RetryProcedure(name: "download", inputFrom: metadata, maxAttempts: 3) { metadata, attempt in
    ///     AsyncProcedure { try await fetch(metadata.url) }
    /// }
    /// ```
    /// - Parameters:
    ///   - name: A name for messages and explanations.
    ///   - dependency: The step whose output every attempt takes.
    ///   - maxAttempts: Attempts at most, the first included (at least 1).
    ///   - wait: The wait before each retry.
    ///   - handler: Told about each failed attempt that has a next one, with that next attempt to
    ///     configure; returns whether and when to retry. Not called after the last allowed attempt.
    ///   - makeAttempt: Makes the procedure for attempt number 1, 2, ... from the input.
    public convenience init<Input: Sendable, Attempt: ResultProcedure<Output>>(
        name: String? = nil,
        inputFrom dependency: ResultProcedure<Input>,
        maxAttempts: Int,
        wait: WaitStrategy = .immediate,
        handler: (@Sendable (_ failed: AttemptOutcome<Attempt>, _ next: Attempt) -> NextAttempt)? = nil,
        makeAttempt: @escaping @Sendable (_ input: Input, _ attempt: Int) -> Attempt
    ) {
        let input = Lock<Input?>(nil)
        let source = dependency.name
        self.init(name: name, maxAttempts: maxAttempts, wait: wait, erasedHandler: AttemptDriver.erase(handler)) {
            attempt in
            // Attempts are made once the retry executes, after its input arrived; without one it
            // was run by hand, and the attempt says so rather than guessing.
            guard let value = input.withLock({ $0 }) else {
                return AsyncProcedure<Output> { throw ProcedureError.inputUnavailable(from: source, reason: nil) }
            }
            return makeAttempt(value, attempt)
        }
        injectResult(from: dependency) { value in input.withLock { $0 = value } }
    }
}

extension RetryProcedure where Output == Void {
    /// Creates a retrying procedure over any procedure: a ``BlockProcedure``, a group, a
    /// subclass of your own. An attempt succeeds when it finishes without an error.
    /// - Parameters:
    ///   - name: A name for messages and explanations.
    ///   - maxAttempts: Attempts at most, the first included (at least 1).
    ///   - wait: The wait before each retry.
    ///   - handler: Told about each failed attempt that has a next one, with that next attempt to
    ///     configure; returns whether and when to retry. Not called after the last allowed attempt
    ///     (there is nothing left to configure): the retry then fails with that attempt's error,
    ///     which its observers and ``ResultProcedure/value()`` see.
    ///   - makeAttempt: Makes the procedure for attempt number 1, 2, ...
    @_disfavoredOverload
    public convenience init<Attempt: Procedure>(
        name: String? = nil,
        maxAttempts: Int,
        wait: WaitStrategy = .immediate,
        handler: (@Sendable (_ failed: AttemptOutcome<Attempt>, _ next: Attempt) -> NextAttempt)? = nil,
        makeAttempt: @escaping @Sendable (_ attempt: Int) -> Attempt
    ) {
        self.init(name: name, maxAttempts: maxAttempts, wait: wait, erasedHandler: AttemptDriver.erase(handler)) {
            makeAttempt($0)
        }
    }
}
