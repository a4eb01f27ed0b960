import ArgumentParser
import CBuildInfo
import CapabilityPolicy
import DecisionService
import Glibc
import LinuxPolicy

/// capctld's command line (`capctld --help`; Packaging/man/capctld.8 says the same).
struct DaemonOptions: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "capctld",
        abstract: "Decides the system policy's gates for the clients of a Unix socket (varlink, org.capctl.gates).",
        discussion: """
            Run by systemd with socket activation (capctld.socket), or by hand with --listen. It reads \
            the system's policy layers only, follows their changes, reloads on SIGHUP or \
            io.systemd.service.Reload, and on SIGTERM stops accepting, lets the clients it serves \
            finish within --drain-timeout, and exits.
            """,
        version: "capctld \(String(cString: capctl_build_commit()))")

    @Option(
        help: "Listen on a new socket at this path (default: the one systemd passes, else /run/capctl/capctld.sock).")
    var listen: String?

    @Option(
        name: .customLong("policy-roots"),
        help: ArgumentHelp("The policy layers, first to last, as absolute directories.", valueName: "dir:dir..."),
        transform: { text in text.split(separator: ":").map(String.init) })
    var policyRoots: [String] = PolicySearchPath.systemRoots

    @Option(name: .customLong("audit-socket"), help: "Send audit records to this syslog socket instead of the journal.")
    var auditSocket: String?

    @Option(
        name: .customLong("audit-limit"),
        help: "Records each user's decisions may write per 30 s before they are summarized (0: no limit).")
    var auditLimit: Int = AuditUserLimit.service.records

    @Option(name: .customLong("idle-timeout"), help: "Seconds a client has to send each call (1 to 3600).")
    var idleTimeout: Int = 10

    @Option(
        name: .customLong("drain-timeout"),
        help: "Seconds the clients being served may take to finish once SIGTERM came (0 to 3600).")
    var drainTimeout: Int = Int(DecisionService.defaultDrainTimeout.components.seconds)

    @Option(
        name: .customLong("reuse-for"),
        help: ArgumentHelp(
            "Seconds a client's Check of a gate that reads only its user, groups and flags is answered again on the same connection while the policy and flags are unchanged (0 to 60; 0: decided every call).",
            valueName: "seconds"))
    var reuseFor: Int = Int(DecisionService.defaultReuseLifetime.components.seconds)

    func validate() throws {
        guard policyRoots.allSatisfy({ $0.hasPrefix("/") }), !policyRoots.isEmpty else {
            throw ValidationError("--policy-roots takes absolute directories")
        }
        guard (1...3600).contains(idleTimeout) else {
            throw ValidationError("--idle-timeout takes whole seconds from 1 to 3600")
        }
        guard (0...3600).contains(drainTimeout) else {
            throw ValidationError("--drain-timeout takes whole seconds from 0 to 3600")
        }
        guard (0...1_000_000).contains(auditLimit) else {
            throw ValidationError("--audit-limit takes a whole number of records from 0 (no limit) to 1000000")
        }
        guard (0...60).contains(reuseFor) else {
            throw ValidationError("--reuse-for takes whole seconds from 0 to 60")
        }
        if let listen, listen.isEmpty { throw ValidationError("--listen needs a path") }
    }

    /// What each user's decisions may write to the audit trail (nil: no bound).
    var auditUserLimit: AuditUserLimit? {
        auditLimit == 0 ? nil : AuditUserLimit(records: auditLimit, per: .seconds(30))
    }

    /// The options `arguments` give; help and the version are printed and exit 0, anything else
    /// wrong is said and exits 64.
    static func read(_ arguments: [String]) -> DaemonOptions {
        do {
            return try parse(arguments)
        } catch {
            let status = exitCode(for: error)
            if status == .success {
                FileHandle.standardOutput.write(fullMessage(for: error) + "\n")
                Glibc.exit(0)
            }
            fail(message(for: error), status: status.rawValue)
        }
    }
}
