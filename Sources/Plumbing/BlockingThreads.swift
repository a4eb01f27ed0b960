import CPlatform
import Dispatch
import Locking

/// Threads for blocking calls: a job runs at once on an idle thread, or on a new one when none is
/// idle, up to a limit; past it, jobs wait their turn in order. A thread idle for ten seconds ends.
///
/// The limit is for the process's sake: a flood of checks that hang (a client asking about a host
/// that never answers, again and again) must not start a thread each without end. The callers'
/// waits stay bounded all the same (`BlockingWork.run` has deadlines and cancellation).
package final class BlockingThreads: Sendable {
    package typealias Job = @Sendable () -> Void

    private final class Worker: Sendable {
        let wake = DispatchSemaphore(value: 0)
        let handedOver = Lock<Job?>(nil)
    }

    private struct State {
        /// Idle threads, the most recently idle last (it is the one taken: its stack is warm).
        var idle: [Worker] = []
        /// Threads started and not ended.
        var threads = 0
        /// Jobs waiting for a thread, oldest first.
        var pending: [Job?] = []
        var firstPending = 0
    }

    private static let idleLifetime = DispatchTimeInterval.seconds(10)
    private let limit: Int
    private let state = Lock(State())

    /// Threads for blocking calls, at most `limit` of them at once.
    package init(limit: Int = 256) {
        self.limit = max(1, limit)
    }

    /// Threads started and not ended.
    var threadCount: Int { state.withLock { $0.threads } }

    /// Runs `job` on a thread of its own, or as soon as one is free when `limit` threads are busy.
    package func run(_ job: @escaping Job) {
        enum Placement {
            case idle(Worker)
            case newThread
            case queued
        }
        let placement = state.withLock { state -> Placement in
            if let worker = state.idle.popLast() { return .idle(worker) }
            guard state.threads < limit else {
                state.pending.append(job)
                return .queued
            }
            state.threads += 1
            return .newThread
        }
        switch placement {
        case .idle(let worker):
            worker.handedOver.withLock { $0 = job }
            worker.wake.signal()
        case .queued:
            return
        case .newThread:
            start(job)
        }
    }

    private func start(_ job: @escaping Job) {
        let worker = Worker()
        // Handed over through the worker, not captured by the thread's closure, which lives as long
        // as the thread: what a job holds (a client's connection) goes when the job ends.
        worker.handedOver.withLock { $0 = job }
        // What `top -H` shows for a thread waiting in a name lookup, a connect or a prompt.
        let started = DetachedThread.start(named: "BlockingWork") { [self] in serve(worker) }
        if !started {
            // No thread to be had (a process or memory limit): Dispatch's shared threads are slow to
            // grow, but the job still runs.
            state.withLock { $0.threads -= 1 }
            if let job = worker.handedOver.withLock({ $0.take() }) { DispatchQueue.global().async(execute: job) }
        }
    }

    private func serve(_ worker: Worker) {
        var job = worker.handedOver.withLock { $0.take() }
        while job != nil {
            Self.run(taking: &job)
            job = nextJob(for: worker)
        }
    }

    /// Runs `job` and lets go of it before returning, so nothing it captured waits with the
    /// idle thread for the next job.
    private static func run(taking job: inout Job?) {
        guard let current = job.take() else { return }
        current()
    }

    /// The next job for `worker`: one waiting already, or one handed over while it was idle; nil
    /// when none came for ten seconds (the thread ends).
    private func nextJob(for worker: Worker) -> Job? {
        let waiting = state.withLock { state -> Job? in
            guard state.firstPending < state.pending.count else {
                state.idle.append(worker)
                return nil
            }
            let job = state.pending[state.firstPending]
            state.pending[state.firstPending] = nil  // what the job holds goes with it
            state.firstPending += 1
            if state.firstPending == state.pending.count { (state.pending, state.firstPending) = ([], 0) }
            return job
        }
        if let waiting { return waiting }
        if worker.wake.wait(timeout: .now() + Self.idleLifetime) == .timedOut {
            let ended = state.withLock { state -> Bool in
                guard let index = state.idle.firstIndex(where: { $0 === worker }) else { return false }
                state.idle.remove(at: index)
                state.threads -= 1
                return true
            }
            if ended { return nil }
            // Taken just as the wait ran out: the job is on its way.
            worker.wake.wait()
        }
        return worker.handedOver.withLock { handed in
            defer { handed = nil }
            return handed
        }
    }
}
