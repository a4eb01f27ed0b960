import Glibc
import LinuxBackends
import ServiceLifecycle

/// capctld's side of systemd's notification protocol, as a service of its group: READY once it
/// serves, WATCHDOG every half of `WatchdogSec=` while the group runs, STOPPING when it shuts
/// down (first of the group's services to hear it).
struct SystemdNotifier: Service {
    let listener: ClientListener

    func run() async throws {
        ServiceNotification.send("READY=1\nSTATUS=deciding for clients of \(listener.path)")
        // Line-buffered or not, the line is out before the first client is served.
        FileHandle.standardOutput.write("capctld: listening on \(listener.path)\n")
        do {
            if let interval = DaemonSettings.watchdogInterval() {
                try await cancelWhenGracefulShutdown {
                    while true {
                        try await Task.sleep(for: interval)
                        ServiceNotification.send("WATCHDOG=1")
                    }
                }
            } else {
                try await gracefulShutdown()
            }
        } catch {
            // Cancelled (the group is going down anyway) or shut down: say so either way.
        }
        ServiceNotification.send("STOPPING=1")
        FileHandle.standardOutput.write("capctld: stopping, \(listener.clientCount) client(s) being served\n")
    }
}
