import Synchronization

/// What a retry or repeat handler decides after an attempt.
public enum NextAttempt: Sendable {
    /// Run the next attempt after the wait strategy's delay.
    case proceed
    /// Run the next attempt after the given delay instead.
    case proceedAfter(Duration)
    /// Stop: the last attempt's outcome is final.
    case stop
}

/// What a retry or repeat handler is told about the attempt that just finished.
public struct AttemptOutcome: Sendable {
    /// The attempt's number, from 1.
    public let attempt: Int
    /// The procedure that ran.
    public let procedure: Procedure
    /// Its error, or nil if it succeeded.
    public let error: (any Error)?
}

/// Runs a fresh procedure per attempt on a private queue, waiting between attempts with a timer.
final class AttemptDriver: Sendable {
    typealias Handler = @Sendable (_ outcome: AttemptOutcome, _ next: Procedure) -> NextAttempt

    private struct State {
        var current: Procedure?
        var last: Procedure?
        var timer: OneShotTimer?
        var isCancelled = false
        var isDone = false
    }

    private let queue = ProcedureQueue(name: "attempts")
    private let maxAttempts: Int?
    private let wait: WaitStrategy
    private let makeAttempt: @Sendable (Int) -> Procedure?
    private let wantsAnother: @Sendable (Procedure) -> Bool
    private let handler: Handler?
    private let onDone: @Sendable (Procedure?) -> Void
    private let state = Mutex(State())

    init(
        maxAttempts: Int?, wait: WaitStrategy, makeAttempt: @escaping @Sendable (Int) -> Procedure?,
        wantsAnother: @escaping @Sendable (Procedure) -> Bool, handler: Handler?,
        onDone: @escaping @Sendable (Procedure?) -> Void
    ) {
        self.maxAttempts = maxAttempts
        self.wait = wait
        self.makeAttempt = makeAttempt
        self.wantsAnother = wantsAnother
        self.handler = handler
        self.onDone = onDone
    }

    /// Starts the first attempt; attempts share the owner's exclusivity as a nested scope.
    func start(owner: Procedure) {
        let scope = owner.storage.withLock { $0.queue?.exclusivityScope } ?? .root
        queue.exclusivityScope = scope.nested(holding: owner.exclusivityCategories)
        guard let first = makeAttempt(1) else {
            finish()
            return
        }
        launch(first, attempt: 1)
    }

    func cancel() {
        let (current, timer) = state.withLock { state in
            state.isCancelled = true
            return (state.current, state.timer)
        }
        timer?.cancel()
        if let current { current.cancel() } else { finish() }
    }

    private func launch(_ procedure: Procedure, attempt: Int) {
        let started = state.withLock { state -> Bool in
            guard !state.isCancelled else { return false }
            state.current = procedure
            state.timer = nil
            return true
        }
        guard started else {
            finish()
            return
        }
        procedure.addObserver(
            BlockObserver(didFinish: { [self] procedure, error in
                attemptDidFinish(procedure, attempt: attempt, error: error)
            }))
        queue.addProcedure(procedure)
    }

    private func attemptDidFinish(_ procedure: Procedure, attempt: Int, error: (any Error)?) {
        let cancelled = state.withLock { state in
            state.current = nil
            state.last = procedure
            return state.isCancelled
        }
        let mayContinue = maxAttempts.map { attempt < $0 } ?? true
        guard !cancelled, mayContinue, wantsAnother(procedure), let next = makeAttempt(attempt + 1) else {
            finish()
            return
        }
        let outcome = AttemptOutcome(attempt: attempt, procedure: procedure, error: error)
        let delay: Duration
        switch handler?(outcome, next) ?? .proceed {
        case .stop:
            finish()
            return
        case .proceed:
            delay = wait.delay(beforeRetry: attempt)
        case .proceedAfter(let custom):
            delay = custom
        }
        guard delay > .zero else {
            launch(next, attempt: attempt + 1)
            return
        }
        let timer = OneShotTimer(after: delay) { [self] in launch(next, attempt: attempt + 1) }
        let scheduled = state.withLock { state -> Bool in
            guard !state.isCancelled else { return false }
            state.timer = timer
            return true
        }
        if !scheduled {
            timer.cancel()
            finish()
        }
    }

    private func finish() {
        let last = state.withLock { state -> Procedure?? in
            guard !state.isDone else { return .none }
            state.isDone = true
            return .some(state.last)
        }
        if case .some(let last) = last { onDone(last) }
    }
}
