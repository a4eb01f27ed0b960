import CPlatform

/// Remembers, per thread, which queue's worker loop the thread is running.
enum WorkerThread {
    /// Marks the current thread as running `queue`'s worker loop (unretained: the loop keeps it alive).
    static func enter(_ queue: AnyObject) {
        cplatform_set_thread_marker(Unmanaged.passUnretained(queue).toOpaque())
    }

    /// Clears the mark.
    static func leave() {
        cplatform_set_thread_marker(nil)
    }

    /// Whether the current thread is running `queue`'s worker loop.
    static func isRunning(_ queue: AnyObject) -> Bool {
        cplatform_thread_marker() == Unmanaged.passUnretained(queue).toOpaque()
    }
}
