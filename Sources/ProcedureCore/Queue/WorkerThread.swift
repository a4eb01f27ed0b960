import CPlatform

/// What a thread running a queue's worker loop keeps for itself, reachable from anything that
/// runs on that thread (a finishing procedure, a dependent becoming ready).
final class WorkerThread {
    /// The queue whose loop this thread runs (the loop keeps it alive).
    unowned(unsafe) let queue: ProcedureQueue
    /// Procedures of `queue` that finished on this thread and still count as unfinished: the
    /// loop takes them off the queue's books in the same lock in which it takes the next work.
    var departures: [(procedure: Procedure, wasExecuting: Bool)] = []

    private init(queue: ProcedureQueue) {
        self.queue = queue
    }

    /// Runs `body` with the current thread marked as running `queue`'s worker loop.
    static func run(for queue: ProcedureQueue, _ body: (WorkerThread) -> Void) {
        let worker = WorkerThread(queue: queue)
        cplatform_set_thread_marker(Unmanaged.passUnretained(worker).toOpaque())
        defer { cplatform_set_thread_marker(nil) }
        withExtendedLifetime(worker) { body(worker) }
    }

    /// The worker loop state of the current thread when it runs `queue`'s loop.
    static func current(for queue: ProcedureQueue) -> WorkerThread? {
        guard let marker = cplatform_thread_marker() else { return nil }
        let worker = Unmanaged<WorkerThread>.fromOpaque(marker).takeUnretainedValue()
        return worker.queue === queue ? worker : nil
    }
}
