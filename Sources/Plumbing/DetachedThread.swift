import CPlatform
import Glibc

/// The one way this package starts a thread of its own: work that blocks (a name lookup, a
/// prompt, reading a helper's pipe) runs there, never on one of the few threads Swift's tasks and
/// Dispatch share.
package enum DetachedThread {
    private final class Work {
        let name: String?
        let body: () -> Void
        init(_ name: String?, _ body: @escaping () -> Void) { (self.name, self.body) = (name, body) }
    }

    /// Starts `body` on a new detached thread named `name` (what `top -H` shows), at the nice value
    /// the process started with (not the one Dispatch gave the thread starting it); false when no
    /// thread could be started (a process or memory limit), and `body` is not run.
    package static func start(named name: String? = nil, _ body: @escaping @Sendable () -> Void) -> Bool {
        let work = Unmanaged.passRetained(Work(name, body)).toOpaque()
        let result = cplatform_start_thread(
            { context in
                let work = Unmanaged<Work>.fromOpaque(context!).takeRetainedValue()
                if let name = work.name { cplatform_name_current_thread(name) }
                _ = cplatform_take_start_priority()
                work.body()
                return nil
            }, work)
        guard result == 0 else {
            Unmanaged<Work>.fromOpaque(work).release()
            return false
        }
        return true
    }

    /// Why threads started from a lower-priority thread (Dispatch's workers) cannot take back the
    /// nice value the process started with, or nil when they can: a thread tries it now. A daemon
    /// started at `Nice=-5` without `LimitNICE=-5` or CAP_SYS_NICE serves at 0, and says so.
    package static func startPriorityRefusal() -> String? {
        let refused = cplatform_start_priority_refusal()
        guard refused != 0 else { return nil }
        return "its threads cannot be given back the nice value \(cplatform_start_nice()) it was started with "
            + "(setpriority: \(String(cString: strerror(refused)))): they serve at the priority of the "
            + "threads that start them; raising them needs LimitNICE=\(cplatform_start_nice()) "
            + "(as capctld.service sets) or CAP_SYS_NICE"
    }
}
