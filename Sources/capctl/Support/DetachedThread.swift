import CPlatform

/// Work that blocks (reading a helper's pipe, waiting for it to end) on a thread of its own, so
/// that it never holds one of the few threads Swift's tasks and Dispatch share.
enum DetachedThread {
    private final class Work {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    /// Starts `body` on a new detached thread; false when no thread could be started.
    static func start(_ body: @escaping @Sendable () -> Void) -> Bool {
        let work = Unmanaged.passRetained(Work(body)).toOpaque()
        let result = cplatform_start_thread(
            { context in
                Unmanaged<Work>.fromOpaque(context!).takeRetainedValue().body()
                return nil
            }, work)
        guard result == 0 else {
            Unmanaged<Work>.fromOpaque(work).release()
            return false
        }
        return true
    }
}
