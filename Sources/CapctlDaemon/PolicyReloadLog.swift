import CapabilityPolicy
import ConfigurationFiles
import Logging
import Plumbing
import ServiceLifecycle

/// Says what capctld serves whenever that changes: every reload that loads ("policy loaded"), and
/// every one that does not, with each error's file:line:column and the policy still served. A
/// file edited in place (inotify) and SIGHUP or `io.systemd.service.Reload` alike: an operator
/// whose edit did not take is told so where they look, the journal (else standard error).
struct PolicyReloadLog: Service {
    let store: PolicyStore
    private let events: AsyncStream<PolicyStore.Event>

    /// Follows `store` from now: a change before the group runs is logged too.
    init(store: PolicyStore) {
        self.store = store
        events = store.events()
    }

    func run() async throws {
        await cancelWhenGracefulShutdown {
            for await event in events {
                switch event {
                case .reloaded: Self.logLoaded(store.current)
                case .failed(let errors): Self.logFailure(errors.errors, serving: store.current)
                }
            }
        }
    }

    /// What the store holds now, as at start.
    static func logState(of store: PolicyStore) {
        if store.problems.isEmpty {
            logLoaded(store.current)
        } else {
            logFailure(store.problems, serving: store.current)
        }
    }

    static func logLoaded(_ loaded: LoadedPolicy?) {
        guard let loaded else { return }
        let files = loaded.policy.files
        DaemonLog.logger.notice(
            "policy loaded: \(loaded.policy.gates.count) gate(s) from \(files.isEmpty ? "no file" : files.joined(separator: ", "))"
        )
    }

    static func logFailure(_ errors: [ConfigurationError], serving loaded: LoadedPolicy?) {
        for error in errors { DaemonLog.logger.error("\(error)") }
        DaemonLog.logger.error("policy not loaded: \(errors.count) error(s); \(serving(loaded))")
    }

    /// What is served while the files do not load.
    static func serving(_ loaded: LoadedPolicy?) -> String {
        guard let loaded else { return "no policy in force: every decision is PolicyUnavailable" }
        return "still serving the policy loaded at \(WallClock.rfc3339(loaded.loadedAt) ?? "an unknown time")"
    }
}
