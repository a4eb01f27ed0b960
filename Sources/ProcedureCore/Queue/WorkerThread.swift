#if canImport(Glibc)
import Glibc
#endif

/// Remembers, per thread, which queue's worker loop the thread is running.
enum WorkerThread {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// Marks the current thread as running `queue`'s worker loop (unretained: the loop keeps it alive).
    static func enter(_ queue: AnyObject) {
        pthread_setspecific(key, Unmanaged.passUnretained(queue).toOpaque())
    }

    /// Clears the mark.
    static func leave() {
        pthread_setspecific(key, nil)
    }

    /// Whether the current thread is running `queue`'s worker loop.
    static func isRunning(_ queue: AnyObject) -> Bool {
        pthread_getspecific(key) == Unmanaged.passUnretained(queue).toOpaque()
    }
}
