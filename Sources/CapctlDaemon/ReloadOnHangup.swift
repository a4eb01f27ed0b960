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

    /// Reads the policy again, telling systemd (`RELOADING=1`, then `READY=1`). What came of it
    /// is logged by ``PolicyReloadLog``, except a failure the store reports once: the same errors
    /// as before, which an operator who asked for this reload must still be told.
    func reload() {
        ServiceNotification.send("RELOADING=1\nMONOTONIC_USEC=\(DaemonSettings.monotonicMicroseconds())")
        let before = store.problems
        store.reload()
        let after = store.problems
        if !after.isEmpty, after == before { PolicyReloadLog.logFailure(after, serving: store.current) }
        DaemonLog.logger.debug("policy read again")
        ServiceNotification.send("READY=1")
    }
}
