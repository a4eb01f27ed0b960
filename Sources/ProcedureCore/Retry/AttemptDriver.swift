import Locking

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
public struct AttemptOutcome<Attempt: Procedure>: Sendable {
    /// The attempt's number, from 1.
    public let attempt: Int
    /// The procedure that ran, as the factory made it.
    public let procedure: Attempt
    /// Its error, or nil if it succeeded.
    public let error: (any Error)?
}

/// Runs a fresh procedure per attempt on a private queue, waiting between attempts with a timer.
final class AttemptDriver: Sendable {
    /// The handler with its types erased: attempt number, the finished attempt, its error, the next attempt.
    typealias Handler =
        @Sendable (_ attempt: Int, _ finished: Procedure, _ error: (any Error)?, _ next: Procedure) ->
        NextAttempt

    /// Erases a typed handler. The driver only passes procedures that the factory made, so the
    /// downcasts hold by construction.
    static func erase<Attempt: Procedure>(
        _ handler: (@Sendable (AttemptOutcome<Attempt>, Attempt) -> NextAttempt)?
    ) -> Handler? {
        guard let handler else { return nil }
        return { attempt, finished, error, next in
            let outcome = AttemptOutcome(
                attempt: attempt, procedure: unsafeDowncast(finished, to: Attempt.self), error: error)
            return handler(outcome, unsafeDowncast(next, to: Attempt.self))
        }
    }

    private struct State {
        var current: Procedure?
        var last: Procedure?
        var timer: OneShotTimer?
        var isCancelled = false
        var isDone = false
        /// The retry or repeat, which shows the current attempt's progress as its own. Strong: the
        /// owner lets go of its driver when it finishes, which ends the cycle (a weak reference would
        /// give every retry a side table, and every retain of it the runtime's slow path).
        var owner: Procedure?
    }

    private let queue = ProcedureQueue(name: "attempts")
    private let maxAttempts: Int?
    private let wait: WaitStrategy
    private let makeAttempt: @Sendable (Int) -> Procedure?
    private let wantsAnother: @Sendable (Procedure) -> Bool
    private let handler: Handler?
    private let onDone: @Sendable (Procedure?) -> Void
    private let state = Lock(State())

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
        let parent = owner.storage.withLock { $0.queue }
        if let parent { queue.logger = parent.logger }
        state.withLock { $0.owner = owner }
        queue.exclusivityScope = (parent?.exclusivityScope ?? .root).nested(holding: owner.exclusivityCategories)
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
        let started = state.withLock { state -> Procedure?? in
            guard !state.isCancelled else { return nil }
            state.current = procedure
            state.timer = nil
            return .some(state.owner)
        }
        guard let owner = started else {
            finish()
            return
        }
        procedure.addObserver(
            BlockObserver(
                didFinish: { [self] procedure, error in attemptDidFinish(procedure, attempt: attempt, error: error) },
                didReportProgress: { _, progress in owner?.reportProgress(progress) }))
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
        let delay: Duration
        switch handler?(attempt, procedure, error, next) ?? .proceed {
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
            state.owner = nil
            return .some(state.last)
        }
        if case .some(let last) = last { onDone(last) }
    }
}
