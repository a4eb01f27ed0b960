// capctld: the system policy's gates, decided for whoever asks over a Unix socket (varlink,
// `org.capctl.gates` and `io.systemd.service`, Docs/Decisions.md). Run by systemd with socket
// activation (capctld.socket), or by hand (`capctld --help`, DaemonOptions).
//
// It reads the system's policy layers only (never a user's), follows their changes, SIGHUP and
// io.systemd.service.Reload, and on SIGTERM stops accepting, lets the clients it serves finish
// (within --drain-timeout, 20 s by default: below the unit's TimeoutStopSec=30s), and exits.
import CBuildInfo
import CLinuxSupport
import CapabilityPolicy
import DecisionService
import FlagSourceClient
import Glibc
import LinuxBackends
import LinuxPolicy
import Logging
import Metrics
import Plumbing
import Prometheus
import ServiceLifecycle
import SystemPackage

/// The socket capctld listens on when run by hand without --listen; capctld.socket names the same.
let defaultSocketPath = "/run/capctl/capctld.sock"

func fail(_ message: String, status: Int32 = 1) -> Never {
    FileHandle.standardError.write("capctld: \(message)\n")
    exit(status)
}

/// Standard output and error, written whole: no stdio buffer to flush.
enum FileHandle {
    static let standardOutput = Stream(descriptor: .standardOutput)
    static let standardError = Stream(descriptor: .standardError)
    struct Stream {
        let descriptor: FileDescriptor
        func write(_ text: String) {
            _ = try? descriptor.writeAll(text.utf8)
        }

        /// Writes `text` without waiting when the descriptor is a socket (journald's stream under
        /// systemd): a journal that stopped reading must not hold a decision. Elsewhere, as ``write(_:)``.
        func writeWithoutWaiting(_ text: String) {
            let bytes = Array(text.utf8)
            let sent = bytes.withUnsafeBytes {
                send(descriptor.rawValue, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL))
            }
            if sent < 0, errno == ENOTSOCK { write(text) }
        }
    }
}

/// Makes the directories above `path` that do not exist, mode 0755 whatever the umask, as
/// capctld.socket's `DirectoryMode=0755` has systemd make them: `--listen /run/capctl/capctld.sock`
/// works on a fresh boot. Existing directories are left as they are.
func makeDirectories(containing path: String) throws {
    var missing: [String] = []
    var directory = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
    while !directory.isEmpty, access(directory, F_OK) != 0 {
        missing.append(directory)
        directory = String(directory[..<(directory.lastIndex(of: "/") ?? directory.startIndex)])
    }
    for directory in missing.reversed() {
        guard mkdir(directory, 0o755) == 0 || errno == EEXIST else {
            throw ListenDirectoryError(directory: directory, code: errno)
        }
        // The mode through the directory itself (O_NOFOLLOW): a symlink put in its place by a
        // user who can write the parent must not have root change the mode of what it names.
        let opened = open(directory, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard opened >= 0 else { throw ListenDirectoryError(directory: directory, code: errno) }
        let made = FileDescriptor(rawValue: opened)
        defer { try? made.close() }
        guard fchmod(made.rawValue, 0o755) == 0 else { throw ListenDirectoryError(directory: directory, code: errno) }
    }
}

struct ListenDirectoryError: Error, CustomStringConvertible {
    let directory: String
    let code: Int32
    var description: String { "cannot make \(directory) for the socket: \(String(cString: strerror(code)))" }
}

/// polkitd's user, which the polkit bridge's rules ask CheckForSubject as (Docs/Decisions.md,
/// "Programs that ask polkit"): trusted for that call as root is, or nobody when there is no such user.
func polkitUser() -> Set<UInt32> {
    if case .found(let uid) = AccountDatabase.user(named: "polkitd") { return [uid] }
    return []
}

/// capctld's process: what `capctld` (and capctl's binary run by that name, as the Debian package
/// installs it) runs.
package enum CapctlDaemon {
    /// Connections each user may hold open at once.
    static let connectionsPerUser = 64
    /// Connections all users together may hold open at once, where descriptors allow.
    static let connections = 16_384

    /// What clients may hold: a connection between calls holds a descriptor and no thread
    /// (`DecisionService.run`), so the bound is descriptors: the soft limit is raised toward the hard
    /// one, up to 65,536 (systemd starts a service at 1,024), and a reserve of 512 is kept for everything else
    /// (policy files, the audit socket, flag services, watches' eventfds), besides up to 4,096 (a
    /// quarter of what is left, where that is less) for clients' processes: a client's connection
    /// keeps its /proc directory and status file open once a decision reads its process, two
    /// descriptors (past 2,048 processes, a decision opens them for itself).
    static func clientLimits() -> ClientLimits {
        var limit = rlimit()
        if getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0,
            limit.rlim_cur < min(limit.rlim_max, 65_536)
        {
            limit.rlim_cur = min(limit.rlim_max, 65_536)
            if setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) != 0 {
                _ = getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
            }
        }
        let descriptors = Int(clamping: limit.rlim_cur)
        let processDescriptors = min(4_096, max(0, (descriptors - 512) / 4))
        ProcessDirectory.setKeptLimit(processDescriptors / 2)
        return ClientLimits(
            perUser: connectionsPerUser, total: max(16, min(connections, descriptors - 512 - processDescriptors)))
    }

    /// Runs the daemon with the process's arguments until SIGTERM or SIGINT, and exits; on the
    /// main thread, as an `@main` program's would.
    @MainActor
    package static func main() async -> Never {
        let options = DaemonOptions.read(Array(CommandLine.arguments.dropFirst()))

        // SIGHUP (reload), SIGTERM and SIGINT (graceful shutdown) are the ServiceGroup's signal
        // sequences'. All three are unblocked first: a mask inherited at exec would otherwise keep
        // them pending for ever.
        _ = clinux_unblock_signals([SIGHUP, SIGTERM, SIGINT], 3)
        signal(SIGPIPE, SIG_IGN)
        DaemonLog.bootstrap()
        // Decisions as metrics, for root's `org.capctl.gates.Metrics` (Prometheus's text format).
        let metrics = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: metrics))

        // The listening socket: systemd's (socket activation), or one made at --listen.
        let limits = clientLimits()
        if limits.total < connections {
            // The operator learns why clients past a few hundred are told Busy.
            DaemonLog.logger.warning(
                "holds at most \(limits.total) clients at once: its descriptor limit allows no more (LimitNOFILE=20480 lets it hold \(connections)); past that a client is told Busy"
            )
        }
        let listener: ClientListener
        do {
            if let count = DaemonSettings.variable("LISTEN_FDS"),
                DaemonSettings.variable("LISTEN_PID") == String(getpid())
            {
                unsetenv("LISTEN_FDS")
                unsetenv("LISTEN_PID")
                unsetenv("LISTEN_FDNAMES")
                guard count == "1" else { fail("systemd passed \(count) sockets; capctld takes one") }
                listener = try ClientListener(adopting: 3, limits: limits, refusal: DecisionService.busyRefusal)
            } else {
                let path = options.listen ?? defaultSocketPath
                try makeDirectories(containing: path)
                listener = try ClientListener(path: path, limits: limits, refusal: DecisionService.busyRefusal)
            }
        } catch {
            fail("\(error)")
        }

        var environment = PolicyEnvironment.linux
        environment.httpFlagSource = { FlagSourceProcess($0) }
        var policyOptions = PolicyOptions()
        policyOptions.keptLoginRecords = DaemonSettings.keptLoginRecords()
        let store = PolicyStore(
            searchPath: PolicySearchPath(directories: options.policyRoots, userDirectory: nil),
            environment: environment,
            options: policyOptions)
        let reloadLog = PolicyReloadLog(store: store)
        PolicyReloadLog.logState(of: store)
        // Each user's decisions write at most --audit-limit records per 30 s (then a summary), so no
        // user crowds others out of the journal's per-service rate limit; lost records are said
        // on standard error (the journal's stream under systemd), never waited for.
        let audit = AuditTrail(
            level: store.current?.policy.audit?.level ?? .all,
            destination: options.auditSocket.map { .syslog(path: $0) } ?? .system, identifier: "capctld",
            limitPerUser: options.auditUserLimit,
            onLostRecords: { FileHandle.standardError.writeWithoutWaiting("capctld: \($0)\n") })
        if let reason = audit.unreachableReason {
            DaemonLog.logger.warning(
                "no audit sink: \(reason); decisions' records are lost until one does (counted in Status's undeliveredAuditRecords)"
            )
        }
        // A priority capctld was started with but its serving threads cannot have (Nice= without
        // LimitNICE= in a drop-in, say) would otherwise be lost without a word.
        if let refusal = DetachedThread.startPriorityRefusal() { DaemonLog.logger.warning("\(refusal)") }
        // How long an answer may be given again, said where the operator reads what capctld does.
        DaemonLog.logger.notice(
            options.reuseFor == 0
                ? "decides every Check (--reuse-for 0)"
                : "answers a connection's Check again for up to \(options.reuseFor) s while its gate reads only the client's user, groups and flags and neither the policy nor the flags change (--reuse-for)"
        )
        let reloader = ReloadOnHangup(store: store)
        let service = DecisionService(
            policy: store, audit: audit, keptLogins: policyOptions.keptLoginRecords, listener: listener,
            version: String(cString: capctl_build_commit()), idleTimeout: .seconds(options.idleTimeout),
            drainTimeout: .seconds(options.drainTimeout), reuseLifetime: .seconds(options.reuseFor),
            metricsExposition: { metrics.emitToString() },
            systemdService: SystemdServiceControl(
                reload: { reloader.reload() }, setLogLevel: { DaemonLog.set(syslogLevel: $0) }),
            subjectAskers: polkitUser())

        // Shut down in the reverse order: systemd hears STOPPING, the listener stops accepting and lets
        // its clients finish, then the store stops following the files.
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [audit, store, reloadLog, reloader, service, SystemdNotifier(listener: listener)],
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: DaemonLog.logger))
        do {
            try await group.run()
        } catch {
            fail("\(error)")
        }
        if listener.clientCount > 0 {
            FileHandle.standardError.write("capctld: \(listener.clientCount) client(s) still served at exit\n")
        }
        FileHandle.standardOutput.write("capctld: stopped\n")
        exit(0)
    }
}
