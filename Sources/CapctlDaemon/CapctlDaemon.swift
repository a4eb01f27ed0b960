// capctld: the system policy's gates, decided for whoever asks over a Unix socket (varlink,
// `org.capctl.gates`, Docs/Decisions.md). Run by systemd with socket activation (capctld.socket),
// or by hand:
//
//     capctld [--listen PATH] [--policy-roots DIR:DIR...] [--audit-socket PATH] [--audit-limit RECORDS]
//             [--idle-timeout SECONDS] [--drain-timeout SECONDS]
//
// It reads the system's policy layers only (never a user's), follows their changes and SIGHUP,
// and on SIGTERM stops accepting, lets the clients it serves finish (within --drain-timeout, 20 s
// by default: below the unit's TimeoutStopSec=30s), and exits.
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

/// The command line: a few options, each with a value.
struct Options {
    var listen: String?
    var policyRoots = PolicySearchPath.systemRoots
    var auditSocket: String?
    /// How long a client has for each call (10 s by default).
    var idleTimeout = Duration.seconds(10)
    /// How long the clients being served may take to finish once SIGTERM came.
    var drainTimeout = DecisionService.defaultDrainTimeout
    /// What each user's decisions may write to the audit trail (nil: no bound).
    var auditLimit: AuditUserLimit? = .service

    init(_ arguments: [String]) {
        var index = 0
        func value(_ option: String) -> String {
            index += 1
            guard index < arguments.count, !arguments[index].isEmpty else {
                fail("\(option) needs a value", status: 64)
            }
            return arguments[index]
        }
        while index < arguments.count {
            switch arguments[index] {
            case "--listen": listen = value("--listen")
            case "--policy-roots":
                policyRoots = value("--policy-roots").split(separator: ":").map(String.init)
                guard policyRoots.allSatisfy({ $0.hasPrefix("/") }) else {
                    fail("--policy-roots takes absolute directories", status: 64)
                }
            case "--audit-socket": auditSocket = value("--audit-socket")
            case "--idle-timeout":
                guard let seconds = Int(value("--idle-timeout")), seconds > 0, seconds <= 3600 else {
                    fail("--idle-timeout takes whole seconds from 1 to 3600", status: 64)
                }
                idleTimeout = .seconds(seconds)
            case "--drain-timeout":
                guard let seconds = Int(value("--drain-timeout")), seconds >= 0, seconds <= 3600 else {
                    fail("--drain-timeout takes whole seconds from 0 to 3600", status: 64)
                }
                drainTimeout = .seconds(seconds)
            case "--audit-limit":
                guard let records = Int(value("--audit-limit")), records >= 0, records <= 1_000_000 else {
                    fail("--audit-limit takes a whole number of records from 0 (no limit) to 1000000", status: 64)
                }
                auditLimit = records == 0 ? nil : AuditUserLimit(records: records, per: .seconds(30))
            case "--version":
                print("capctld \(String(cString: capctl_build_commit()))")
                exit(0)
            case "--help", "-h":
                print(
                    "usage: capctld [--listen PATH] [--policy-roots DIR:DIR...] [--audit-socket PATH] [--audit-limit RECORDS] [--idle-timeout SECONDS] [--drain-timeout SECONDS]"
                )
                exit(0)
            default: fail("unknown argument \"\(arguments[index])\" (see --help)", status: 64)
            }
            index += 1
        }
    }
}

/// capctld's process: what `capctld` (and capctl's binary run by that name, as the Debian package
/// installs it) runs.
package enum CapctlDaemon {
    /// Runs the daemon with the process's arguments until SIGTERM or SIGINT, and exits; on the
    /// main thread, as an `@main` program's would.
    @MainActor
    package static func main() async -> Never {
        let options = Options(Array(CommandLine.arguments.dropFirst()))

        // SIGHUP (reload) becomes a byte on a pipe that one thread reads; SIGTERM and SIGINT are the
        // ServiceGroup's (graceful shutdown). All three are unblocked first: a mask inherited at exec would
        // otherwise keep them pending for ever.
        let signalPipe = clinux_signal_pipe([SIGHUP], 1)
        guard signalPipe >= 0 else { fail("cannot catch signals: \(String(cString: strerror(-signalPipe)))") }
        _ = clinux_unblock_signals([SIGTERM, SIGINT], 2)
        signal(SIGPIPE, SIG_IGN)
        LoggingSystem.bootstrap(StreamLogHandler.standardError)
        // Decisions as metrics, for root's `org.capctl.gates.Metrics` (Prometheus's text format).
        let metrics = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: metrics))

        // The listening socket: systemd's (socket activation), or one made at --listen.
        let listener: ClientListener
        do {
            if let count = DaemonSettings.variable("LISTEN_FDS"),
                DaemonSettings.variable("LISTEN_PID") == String(getpid())
            {
                unsetenv("LISTEN_FDS")
                unsetenv("LISTEN_PID")
                unsetenv("LISTEN_FDNAMES")
                guard count == "1" else { fail("systemd passed \(count) sockets; capctld takes one") }
                listener = try ClientListener(adopting: 3, refusal: DecisionService.busyRefusal)
            } else {
                listener = try ClientListener(
                    path: options.listen ?? defaultSocketPath, refusal: DecisionService.busyRefusal)
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
        for problem in store.problems { FileHandle.standardError.write("capctld: \(problem)\n") }
        // Each user's decisions write at most --audit-limit records per 30 s (then a summary), so no
        // user crowds others out of the journal's per-service rate limit; lost records are said
        // on standard error (the journal's stream under systemd), never waited for.
        let audit = AuditTrail(
            level: store.current?.policy.audit?.level ?? .all,
            destination: options.auditSocket.map { .syslog(path: $0) } ?? .system, identifier: "capctld",
            limitPerUser: options.auditLimit,
            onLostRecords: { FileHandle.standardError.writeWithoutWaiting("capctld: \($0)\n") })
        let service = DecisionService(
            policy: store, audit: audit, keptLogins: policyOptions.keptLoginRecords, listener: listener,
            version: String(cString: capctl_build_commit()), idleTimeout: options.idleTimeout,
            drainTimeout: options.drainTimeout,
            metricsExposition: { metrics.emitToString() })

        // SIGHUP reads the policy again, whatever the group is doing.
        _ = DetachedThread.start(named: "capctld-signals") {
            while true {
                var byte: UInt8 = 0
                let count = read(signalPipe, &byte, 1)
                if count < 0, errno == EINTR { continue }
                guard count == 1 else { return }
                ServiceNotification.send("RELOADING=1\nMONOTONIC_USEC=\(DaemonSettings.monotonicMicroseconds())")
                store.reload()
                for problem in store.problems { FileHandle.standardError.write("capctld: \(problem)\n") }
                ServiceNotification.send("READY=1")
            }
        }

        // Shut down in the reverse order: systemd hears STOPPING, the listener stops accepting and lets
        // its clients finish, then the store stops following the files.
        var logger = Logger(label: "capctld")
        logger.logLevel = .warning
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [audit, store, service, SystemdNotifier(listener: listener)],
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger))
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
