import CPlatform
import Dispatch
import Locking

/// Runs async work from a thread of our own and blocks that thread until it is done: how a
/// service's client thread (`BlockingThreads`) asks the async core for a decision. Never from
/// one of Swift's cooperative threads, which this would hold.
///
/// The work's tasks run on the calling thread itself (a task executor that thread drains), and
/// blocking work they hand to ``BlockingWork`` runs there too: the thread is ours and would only
/// wait otherwise. A decision then costs no thread hops: no wakeup of a pool thread, of a
/// blocking thread, and of this one again (Docs/Performance.md, "capctld").
package enum TaskWait {
    /// The value `operation` returns, waiting for it on the calling thread.
    package static func value<Value: Sendable>(_ operation: @escaping @Sendable () async -> Value) -> Value {
        let executor = CallingThreadExecutor()
        let result = Lock<Value?>(nil)
        Task(executorPreference: executor) {
            let value = await TaskWait.$executor.withValue(executor) { await operation() }
            result.withLock { $0 = value }
            executor.finish()
        }
        blockingAllowed { executor.runUntilFinished() }
        return result.withLock { $0! }
    }

    /// The executor of the ``value(_:)`` the current task runs in, if any: for the unstructured
    /// tasks it starts (a condition's check), so they run on the same thread rather than hop to
    /// the global pool (`Task(executorPreference: TaskWait.executor)`; nil: no preference).
    @TaskLocal package static var executor: (any TaskExecutor)?

    /// `body`'s value, computed with the calling thread marked as one that may block, as
    /// ``value(_:)``'s tasks run: for a thread of our own whose caller waits on it anyway (a
    /// service's client thread), so that checks which would only block (a file's access) answer at
    /// once there and a decision needs no task at all.
    package static func blockingAllowed<Value, Failure: Error>(
        _ body: () throws(Failure) -> Value
    ) throws(Failure) -> Value {
        let mayBlock = cplatform_thread_may_block()
        cplatform_set_thread_may_block(1)
        defer { cplatform_set_thread_may_block(mayBlock) }
        return try body()
    }

    /// Whether the calling thread runs a ``value(_:)``'s tasks, and so may block.
    static var threadMayBlock: Bool { cplatform_thread_may_block() != 0 }

    /// ``threadMayBlock``, for the tests.
    package static var threadMayBlockForTesting: Bool { threadMayBlock }
}

/// A task executor whose jobs run on the one thread that calls ``runUntilFinished()``.
private final class CallingThreadExecutor: TaskExecutor, Sendable {
    private let jobs = Lock<(waiting: [UnownedJob], finished: Bool)>(([], false))
    /// One signal per job enqueued, and one at the end.
    private let signals = DispatchSemaphore(value: 0)

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        jobs.withLock { $0.waiting.append(job) }
        signals.signal()
    }

    /// Called by the last job: ``runUntilFinished()`` returns once it is back.
    func finish() {
        jobs.withLock { $0.finished = true }
        signals.signal()
    }

    func runUntilFinished() {
        while true {
            signals.wait()
            let next = jobs.withLock { jobs -> UnownedJob?? in
                if !jobs.waiting.isEmpty { return .some(jobs.waiting.removeFirst()) }
                return jobs.finished ? .none : .some(nil)
            }
            switch next {
            case .none: return
            case .some(nil): continue
            case .some(let job?): job.runSynchronously(on: asUnownedTaskExecutor())
            }
        }
    }
}
