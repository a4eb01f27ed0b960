import CPlatform
import Dispatch
import Locking

/// Threads for blocking calls: a job runs at once on an idle thread, or on a new one when none is
/// idle, never waiting behind another job. A thread idle for ten seconds ends.
final class BlockingThreads: Sendable {
    private final class Worker: Sendable {
        let wake = DispatchSemaphore(value: 0)
        let handedOver = Lock<(@Sendable () -> Void)?>(nil)
    }

    private final class Start {
        let threads: BlockingThreads
        let worker: Worker
        let job: @Sendable () -> Void
        init(_ threads: BlockingThreads, _ worker: Worker, _ job: @escaping @Sendable () -> Void) {
            (self.threads, self.worker, self.job) = (threads, worker, job)
        }
    }

    private static let idleLifetime = DispatchTimeInterval.seconds(10)
    /// Idle threads, the most recently idle last (it is the one taken: its stack is warm).
    private let idle = Lock<[Worker]>([])

    /// Runs `job` on a thread of its own.
    func run(_ job: @escaping @Sendable () -> Void) {
        if let worker = idle.withLock({ $0.popLast() }) {
            worker.handedOver.withLock { $0 = job }
            worker.wake.signal()
            return
        }
        let start = Unmanaged.passRetained(Start(self, Worker(), job)).toOpaque()
        let started = cplatform_start_thread(
            { context in
                let start = Unmanaged<Start>.fromOpaque(context!).takeRetainedValue()
                start.threads.serve(start.worker, first: start.job)
                return nil
            }, start)
        if started != 0 {
            // No thread to be had (a process or memory limit): Dispatch's shared threads are slow to
            // grow, but the job still runs.
            let start = Unmanaged<Start>.fromOpaque(start).takeRetainedValue()
            DispatchQueue.global().async(execute: start.job)
        }
    }

    private func serve(_ worker: Worker, first: @escaping @Sendable () -> Void) {
        var job: (@Sendable () -> Void)? = first
        while let current = job {
            current()
            job = nextJob(for: worker)
        }
    }

    /// The next job handed to `worker`, or nil when none came while it was idle (the thread ends).
    private func nextJob(for worker: Worker) -> (@Sendable () -> Void)? {
        idle.withLock { $0.append(worker) }
        if worker.wake.wait(timeout: .now() + Self.idleLifetime) == .timedOut {
            let stillIdle = idle.withLock { idle -> Bool in
                guard let index = idle.firstIndex(where: { $0 === worker }) else { return false }
                idle.remove(at: index)
                return true
            }
            if stillIdle { return nil }
            // Taken just as the wait ran out: the job is on its way.
            worker.wake.wait()
        }
        return worker.handedOver.withLock { handed in
            defer { handed = nil }
            return handed
        }
    }
}
