import CapabilityPolicy
import LinuxBackends
import ServiceLifecycle
import UnixSignals

/// Reads the policy again on SIGHUP (`systemctl reload capctld`), through swift-service-lifecycle's
/// signal sequence, until the group shuts down; `io.systemd.service.Reload` runs the same ``reload()``.
struct ReloadOnHangup: Service {
    let store: PolicyStore

    func run() async throws {
        let hangups = await UnixSignalsSequence(trapping: .sighup)
        await cancelWhenGracefulShutdown {
            for await _ in hangups { reload() }
        }
    }

    /// Reads the policy again, telling systemd (`RELOADING=1`, then `READY=1`) and logging each problem.
    func reload() {
        ServiceNotification.send("RELOADING=1\nMONOTONIC_USEC=\(DaemonSettings.monotonicMicroseconds())")
        store.reload()
        for problem in store.problems { DaemonLog.logger.error("\(problem)") }
        DaemonLog.logger.debug("policy read again")
        ServiceNotification.send("READY=1")
    }
}
