import Dispatch
import Locking

/// How a blocking call ended, as the task that waited for it saw it.
package enum BlockingOutcome<Value: Sendable>: Sendable {
    /// The call returned this.
    case finished(Value)
    /// The deadline passed first.
    case timedOut
    /// The waiting task was cancelled first.
    case cancelled
}

/// The one way this package runs calls that block: name lookups, connects, PAM conversations,
/// D-Bus round trips, lookups that may reach a directory server.
///
/// Swift's cooperative pool has a thread per core; a call that waits on the network there stalls
/// every task behind it. So blocking calls run on threads of their own, and the task that waits
/// for one stays cancellable and bounded: it resumes at cancellation or at the deadline, whichever
/// comes first, even while the call goes on.
package enum BlockingWork {
    /// Threads of our own. Not a Dispatch queue: on Linux, Dispatch adds a thread to a queue whose
    /// jobs block about once a second (BlockingWorkTests measured 16 s for 16 waiting jobs), so one
    /// slow name server would hold up every other check.
    private static let threads = BlockingThreads()
    /// Only for the deadline timers, which never block.
    private static let timers = DispatchQueue(label: "Plumbing.BlockingWork.timers")

    /// Whether work without a deadline runs on the calling thread: a thread of ours that may block
    /// (``TaskWait``), where waiting for another thread would only add a hop.
    package static var runsOnCallingThread: Bool { TaskWait.threadMayBlock }

    /// Runs `work` on a thread outside the cooperative pool and returns its value; or
    /// ``BlockingOutcome/timedOut`` once `deadline` passes, or ``BlockingOutcome/cancelled`` once
    /// the calling task is cancelled, if either comes first.
    ///
    /// - Parameter interrupt: Called when the caller stops waiting early (deadline or
    ///   cancellation), so work that can be woken ends soon. Work that cannot be woken runs to its
    ///   end on its thread; its value is dropped.
    package static func run<Value: Sendable>(
        deadline: ContinuousClock.Instant? = nil,
        interrupt: (@Sendable () -> Void)? = nil,
        _ work: @escaping @Sendable () -> Value
    ) async -> BlockingOutcome<Value> {
        // A thread that runs its own decision's tasks (TaskWait) would only wait for another.
        if deadline == nil, runsOnCallingThread {
            return Task.isCancelled ? .cancelled : .finished(work())
        }
        let waiter = Waiter<Value>()
        let outcome = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<BlockingOutcome<Value>, Never>) in
                guard waiter.wait(with: continuation) else { return }
                threads.run { waiter.answer(.finished(work())) }
                // After an earlier answer the timer finds nothing to do; it holds only the small waiter.
                if let deadline { timers.asyncAfter(deadline: dispatchTime(of: deadline)) { waiter.answer(.timedOut) } }
            }
        } onCancel: {
            waiter.answer(.cancelled)
        }
        if case .finished = outcome {} else { interrupt?() }
        return outcome
    }

    /// Runs `work` on a thread outside the cooperative pool and returns its value; throws
    /// `CancellationError` as soon as the calling task is cancelled (the work's value is dropped).
    package static func value<Value: Sendable>(_ work: @escaping @Sendable () -> Value) async throws -> Value {
        guard case .finished(let value) = await run(work) else { throw CancellationError() }
        return value
    }

    private static func dispatchTime(of deadline: ContinuousClock.Instant) -> DispatchTime {
        let left = ContinuousClock.now.duration(to: deadline)
        guard left > .zero else { return .now() }
        let (seconds, attoseconds) = left.components
        guard seconds < Int64(Int.max / 1_000_000_000) - 1 else { return .distantFuture }
        return .now() + .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
    }

    /// The first answer wins: the work, the timer or the cancellation handler, whichever runs first.
    private final class Waiter<Value: Sendable>: Sendable {
        private enum State {
            case starting
            case waiting(CheckedContinuation<BlockingOutcome<Value>, Never>)
            /// Cancelled before the continuation existed; it resumes as soon as it does.
            case cancelledEarly
            case answered
        }

        private let state = Lock(State.starting)

        /// Keeps `continuation`; false when cancellation came first (it has been resumed then).
        func wait(with continuation: CheckedContinuation<BlockingOutcome<Value>, Never>) -> Bool {
            let early = state.withLock { state -> Bool in
                if case .cancelledEarly = state {
                    state = .answered
                    return true
                }
                state = .waiting(continuation)
                return false
            }
            if early { continuation.resume(returning: .cancelled) }
            return !early
        }

        func answer(_ outcome: BlockingOutcome<Value>) {
            let waiting = state.withLock { state -> CheckedContinuation<BlockingOutcome<Value>, Never>? in
                switch state {
                case .starting:
                    if case .cancelled = outcome { state = .cancelledEarly }
                    return nil
                case .waiting(let continuation):
                    state = .answered
                    return continuation
                case .cancelledEarly, .answered:
                    return nil
                }
            }
            waiting?.resume(returning: outcome)
        }
    }
}
