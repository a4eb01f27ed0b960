import Locking

/// A procedure whose work is an `async throws` closure or method, run in a Swift task.
///
/// Cancelling the procedure cancels the task. A body that throws `CancellationError` after
/// the procedure was cancelled finishes it cancelled, without an error.
///
/// ```swift
/// let users = AsyncProcedure(name: "load users") { try await fetchSize(of: urls[0]) }
/// queue.addProcedure(users)
/// let size = try await users.value()
/// ```
// Sendable by hand, as `Procedure`: the running work's task is behind a lock.
open class AsyncProcedure<Output: Sendable>: ResultProcedure<Output>, @unchecked Sendable {
    private enum Body {
        case plain(@Sendable () async throws -> Output)
        case reporting(@Sendable (ProgressReporter) async throws -> Output)
    }

    private struct Work {
        var body: Body?
        var task: Task<Void, Never>?
    }

    private let work: Lock<Work>

    /// Creates a procedure running `body`.
    public init(name: String? = nil, _ body: @escaping @Sendable () async throws -> Output) {
        work = Lock(Work(body: .plain(body)))
        super.init(name: name)
    }

    /// Creates a procedure running `body`, which reports its progress through the reporter it is
    /// handed (``Procedure/reportProgress(completed:of:detail:)``).
    ///
    /// ```swift
    /// let upload = AsyncProcedure(name: "upload") { progress in
    ///     for part in 1...4 {
    ///         try await send(part)
    ///         progress.report(completed: Int64(part), of: 4)
    ///     }
    /// }
    /// ```
    /// - Parameters:
    ///   - name: A name for messages and explanations.
    ///   - body: The work; it returns the output.
    public init(
        name: String? = nil, reportingProgress body: @escaping @Sendable (ProgressReporter) async throws -> Output
    ) {
        work = Lock(Work(body: .reporting(body)))
        super.init(name: name)
    }

    /// Creates a procedure for a subclass that overrides ``run()``.
    public override init(name: String? = nil) {
        work = Lock(Work(body: nil))
        super.init(name: name)
    }

    /// The work. The default runs the closure given at creation; subclasses may override it.
    open func run() async throws -> Output {
        switch work.withLock({ $0.body }) {
        case .plain(let body): return try await body()
        case .reporting(let body): return try await body(ProgressReporter(self))
        case nil: throw ProcedureError.noOutput(name)
        }
    }

    public final override func execute() {
        guard isExecuting else { return }
        let task = Task { [self] in
            do {
                let value = try await run()
                finish(returning: value)
            } catch is CancellationError where isCancelled {
                finish()
            } catch {
                finish(throwing: error)
            }
        }
        let cancelled = work.withLock { work -> Bool in
            work.task = task
            return isCancelled
        }
        if cancelled { task.cancel() }
    }

    open override func didCancel(with error: (any Error)?) {
        work.withLock { $0.task }?.cancel()
    }

    override func releaseWorkBody(executed: Bool) {
        work.withLock { $0 = Work() }
    }
}

extension AsyncProcedure {
    /// Creates a procedure that takes its input from `dependency`'s output.
    ///
    /// It depends on `dependency`; if that fails or is cancelled, this one is cancelled with
    /// ``ProcedureError/inputUnavailable(from:reason:)`` and `body` never runs.
    public convenience init<Input: Sendable>(
        name: String? = nil,
        inputFrom dependency: ResultProcedure<Input>,
        _ body: @escaping @Sendable (Input) async throws -> Output
    ) {
        let input = Lock<Input?>(nil)
        self.init(name: name) {
            guard let value = input.withLock({ $0 }) else {
                throw ProcedureError.inputUnavailable(from: dependency.name, reason: nil)
            }
            return try await body(value)
        }
        injectResult(from: dependency) { value in input.withLock { $0 = value } }
    }
}
