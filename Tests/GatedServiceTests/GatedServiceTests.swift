import Foundation
import Glibc
import TestSupport
import Testing

/// The example service as an administrator runs it: gated-daemon as root, gated-client as uid
/// 65534 (setpriv) over a real Unix socket. Each answer is decided for the client.
@Suite(
    "gated service example", .serialized, .enabled(if: geteuid() == 0, "needs root to run clients as uid 65534"),
    .timeLimit(.minutes(2)))
struct GatedServiceTests {
    /// The daemon with `policy`, ready once it said it listens.
    private func daemon(policy: String, audit: SyslogReceiver? = nil) async throws -> (
        DaemonProcess, socket: String, log: String, TemporaryDirectory
    ) {
        let directory = try TemporaryDirectory(prefix: "gated-service")
        chmod(directory.path, 0o755)
        let policyFile = try directory.write(policy, to: "policy.yaml")
        let log = try directory.write("", to: "log")
        let socket = directory.path + "/gated.sock"
        let process = try DaemonProcess(
            [builtProduct("gated-daemon"), "--socket", socket, "--policy", policyFile, "--log", log]
                + (audit.map { ["--audit-socket", $0.socketPath] } ?? []),
            environment: ProcessInfo.processInfo.environment)
        #expect(await process.nextLine() == "listening on \(socket)")
        return (process, socket, log, directory)
    }

    /// The client's exit status and reply, run with `credentials` (setpriv options; none for root).
    private func client(_ socket: String, _ request: [String], credentials: [String]?) throws -> (Int32, String) {
        let run = try clientRun(socket, request, credentials: credentials)
        return (run.status, run.standardOutput.trimmingCharacters(in: .newlines))
    }

    /// The client run as `uid` (65534) with `input` answering the daemon's questions, in a session
    /// of its own when asked.
    private func clientRun(
        _ socket: String, _ request: [String], credentials: [String]?, input: String = "", newSession: Bool = false,
        uid: Int = 65534
    ) throws -> ProcessOutput {
        let client = builtProductForAnyUser("gated-client")
        var command =
            credentials.map { ["/usr/bin/setpriv", "--reuid=\(uid)", "--regid=\(uid)"] + $0 + [client] } ?? [client]
        if newSession { command = ["/usr/bin/setsid", "--wait"] + command }
        return try runProcess(command[0], Array(command.dropFirst()) + ["--socket", socket] + request, input: input)
    }

    static let policy = """
        capabilities:
          operators: { kind: group, group: "4242" }
          is-root: { kind: user, user: root }
        gates:
          restart-unit: { require: { any-of: [operators, is-root] } }
        """

    @Test("answers differ by the client's user and groups; what a request says of its sender is ignored")
    func perClient() async throws {
        let (daemon, socket, log, directory) = try await daemon(policy: Self.policy)
        defer { daemon.stop() }
        _ = directory
        let plain = try client(socket, ["restart", "nginx"], credentials: ["--clear-groups"])
        #expect(plain.0 == 1)
        // Told the outcome, not the policy's parts (its groups, its users): those are audited.
        #expect(plain.1 == "denied: fails", "\(plain.1)")
        let member = try client(socket, ["restart", "nginx"], credentials: ["--groups=4242"])
        #expect(member.0 == 0, "\(member.1)")
        #expect(member.1 == "ok: restarted nginx")
        #expect(try client(socket, ["restart", "nginx"], credentials: nil).1 == "ok: restarted nginx")
        // A client claiming to be root in its request is still the socket's peer.
        let forged = try client(socket, ["restart", "nginx", "uid=0"], credentials: ["--clear-groups"])
        #expect(forged.0 == 1)
        #expect(!forged.1.hasPrefix("ok"), "\(forged.1)")
        let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 2, "\(lines)")
        #expect(lines.first?.hasPrefix("restarted nginx for nobody(65534), pid ") == true, "\(lines)")
        #expect(lines.last?.hasPrefix("restarted nginx for root(0)") == true, "\(lines)")
    }

    @Test(
        "a client that execs a setuid or file-capability program after connecting is not served as that program"
    )
    func execAfterConnect() async throws {
        let policy =
            PrivilegedPrograms.capabilitiesTheyGain + """
                gates:
                  restart-unit: { require: { any-of: [sys-admin, net-bind] } }
                """
        let (daemon, socket, log, directory) = try await daemon(policy: policy)
        defer { daemon.stop() }
        _ = directory
        let programs = try PrivilegedPrograms()
        // Before, both exec's got `ok: restarted nginx` and the daemon restarted it for uid 65534.
        for program in [programs.setuidRoot, programs.fileCapability] {
            let attack = try await PrivilegedPrograms.execAfterConnect(
                socket, request: "restart nginx\\n", program: program)
            #expect(attack.program.contains("uid=65534,0 ") || attack.program.hasSuffix("capeff=0000000000000400"))
            #expect(attack.reply.hasPrefix("denied: undecided"), "\(program): \(attack.reply)")
        }
        #expect(try String(contentsOfFile: log, encoding: .utf8).isEmpty, "nothing was restarted")
        // A capability the client was given itself (as AmbientCapabilities= gives it) is served.
        let ambient = try await PrivilegedPrograms.execAfterConnect(
            socket, request: "restart nginx\\n", program: "/bin/sleep",
            credentials: ["--clear-groups", "--inh-caps=+net_bind_service", "--ambient-caps=+net_bind_service"])
        #expect(ambient.reply == "ok: restarted nginx", "\(ambient.reply)")
    }

    @Test(
        "every decision for a client is in the audit trail, with the client as subject",
        .enabled(if: SyslogReceiver.isAvailable, "needs rsyslog"))
    func audited() async throws {
        let receiver = try SyslogReceiver()
        let (daemon, socket, _, directory) = try await daemon(policy: Self.policy, audit: receiver)
        defer { daemon.stop() }
        _ = directory
        #expect(try client(socket, ["restart", "nginx"], credentials: ["--clear-groups"]).0 == 1)
        let denied = try #require(await receiver.nextRecord())
        #expect(denied.hasPrefix("authpriv.warning gated-daemon: "), "\(denied)")
        for field in [
            #"CAPCTL_ACTION="serve""#, #"CAPCTL_GATE="restart-unit""#, #"CAPCTL_OUTCOME="fails""#,
            #"CAPCTL_UID="65534""#, #"CAPCTL_REQUEST_UNIT="nginx""#, "nobody(65534)",
        ] {
            #expect(denied.contains(field), "\(field) in \(denied)")
        }
        #expect(try client(socket, ["restart", "nginx"], credentials: ["--groups=4242"]).0 == 0)
        let allowed = try #require(await receiver.nextRecord())
        #expect(allowed.contains(#"CAPCTL_OUTCOME="holds""#) && allowed.contains("CAPCTL_PID="), "\(allowed)")
    }

    @Test(
        "a PAM login the gate needs is asked of the client over the connection, never on the daemon's terminal",
        .enabled(if: PAMTestModules.matrix != nil, "needs libpam-wrapper"))
    func loginRelayedToTheClient() async throws {
        let pam = try PAMServiceDirectory(passwords: ["alice:secret:gated-test", "nobody:nobody-secret:gated-test"])
        try pam.matrixService("gated-test")
        let policy = """
            capabilities:
              admin: { kind: pam, service: gated-test, user: alice, service-directory: \(pam.path) }
            gates:
              restart-unit: { require: admin }
            """
        let receiver = SyslogReceiver.isAvailable ? try SyslogReceiver() : nil
        let (daemon, socket, log, directory) = try await daemon(policy: policy, audit: receiver)
        defer { daemon.stop() }
        _ = directory
        // The administrator's password, typed by the client's person: the question came to the client.
        let right = try clientRun(socket, ["restart", "nginx"], credentials: ["--clear-groups"], input: "secret\n")
        #expect(right.status == 0, "\(right.standardOutput)\(right.standardError)")
        if let receiver {
            // The record says who logged in to open the gate.
            let record = await receiver.nextRecord() ?? ""
            #expect(record.contains(#"CAPCTL_LOGIN="alice (admin)""#), "\(record)")
            #expect(record.contains(#"CAPCTL_OUTCOME="holds""#), "\(record)")
        }
        #expect(right.standardError.contains("password for alice"), "the client was asked: \(right.standardError)")
        let wrong = try clientRun(socket, ["restart", "nginx"], credentials: ["--clear-groups"], input: "guess\n")
        #expect(wrong.status == 1 && wrong.standardOutput.hasPrefix("denied: "), "\(wrong.standardOutput)")
        // Not kept (no keep:): the next request asks again.
        let again = try clientRun(socket, ["restart", "nginx"], credentials: ["--clear-groups"])
        #expect(again.status == 1, "\(again.standardOutput)")
        // A client that answers with more than PAM takes, or goes away, is dismissed, not let in.
        let long = try clientRun(
            socket, ["restart", "nginx"], credentials: ["--clear-groups"],
            input: String(repeating: "x", count: 600) + "\n")
        #expect(long.status == 1 && long.standardOutput.hasPrefix("denied: "), "\(long.standardOutput)")
        #expect(long.standardOutput.hasPrefix("denied: dismissed"), "dismissed, not denied: \(long.standardOutput)")
        let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 1, "\(lines)")
    }

    @Test(
        "keep: a client's login is kept for that client's session only, never for another client",
        .enabled(if: PAMTestModules.matrix != nil, "needs libpam-wrapper"))
    func loginKeptPerClient() async throws {
        let pam = try PAMServiceDirectory(passwords: ["nobody:nobody-secret:gated-test", "root:root-secret:gated-test"])
        try pam.matrixService("gated-test")
        // No user: each client authenticates as itself (polkit's auth_self), and it is kept.
        let policy = """
            capabilities:
              self: { kind: pam, service: gated-test, service-directory: \(pam.path), keep: 5m }
            gates:
              restart-unit: { require: self }
            """
        let (daemon, socket, _, directory) = try await daemon(policy: policy)
        defer { daemon.stop() }
        _ = directory
        let nobody = ["--clear-groups"]
        // Root's password does not log nobody in: the login is the client's own user's.
        let rootPassword = try clientRun(socket, ["restart", "a"], credentials: nobody, input: "root-secret\n")
        #expect(rootPassword.status == 1, "\(rootPassword.standardOutput)")
        let first = try clientRun(socket, ["restart", "a"], credentials: nobody, input: "nobody-secret\n")
        #expect(first.status == 0, "\(first.standardOutput)\(first.standardError)")
        // The same client session: kept, nothing asked.
        let kept = try clientRun(socket, ["restart", "b"], credentials: nobody)
        #expect(kept.status == 0, "\(kept.standardOutput)")
        #expect(!kept.standardError.contains("Password"), "\(kept.standardError)")
        // Another session of the same user, and another user: asked again.
        let otherSession = try clientRun(socket, ["restart", "c"], credentials: nobody, newSession: true)
        #expect(otherSession.status == 1, "\(otherSession.standardOutput)")
        let root = try clientRun(socket, ["restart", "d"], credentials: nil)
        #expect(root.status == 1, "\(root.standardOutput)")
    }

    @Test("file access and flag rules are decided for the client, not for the root daemon")
    func fileAndFlagsForTheClient() async throws {
        let secrets = try TemporaryDirectory(prefix: "gated-secret")
        chmod(secrets.path, 0o755)
        let secret = try secrets.write("root only\n", to: "unit.conf", mode: 0o600)
        let shared = try secrets.write("anyone\n", to: "shared.conf", mode: 0o644)
        let policy = """
            flags:
              inline:
                flags:
                  restarts:
                    state: ENABLED
                    variants: { "on": true, "off": false }
                    defaultVariant: "off"
                    targeting: { "if": [ { "in": [ 4343, { "var": "groups" } ] }, "on", "off" ] }
            capabilities:
              read-config: { kind: file, path: \(secret), access: [read] }
              read-shared: { kind: file, path: \(shared), access: [read] }
              restarts-on: { kind: flag, flag: restarts }
            gates:
              restart-unit: { require: { all-of: [read-shared, { any-of: [read-config, restarts-on] }] } }
            """
        let (daemon, socket, _, directory) = try await daemon(policy: policy)
        defer { daemon.stop() }
        _ = directory
        // The daemon can read the root-only file; uid 65534 cannot, so only the flag could let it in.
        let denied = try client(socket, ["restart", "nginx"], credentials: ["--groups=4242"])
        #expect(denied.0 == 1, "\(denied.1)")
        #expect(denied.1 == "denied: fails", "\(denied.1)")
        // The flag rule reads the client's groups.
        let flagged = try client(socket, ["restart", "nginx"], credentials: ["--groups=4343"])
        #expect(flagged.0 == 0, "\(flagged.1)")
        #expect(try client(socket, ["restart", "nginx"], credentials: nil).0 == 0)
    }

    @Test(
        "a flood of silent and idle clients costs only their own slots: another client is served while they hang",
        .enabled(if: PAMTestModules.matrix != nil, "needs libpam-wrapper"))
    func floodOfStallingClients() async throws {
        let pam = try PAMServiceDirectory(passwords: ["alice:secret:gated-test"])
        try pam.matrixService("gated-test")
        // Every client is asked alice's password: a silent client holds a PAM conversation open.
        let policy = """
            capabilities:
              admin: { kind: pam, service: gated-test, user: alice, service-directory: \(pam.path) }
            gates:
              restart-unit: { require: admin }
            """
        let (daemon, socket, log, directory) = try await daemon(policy: policy)
        defer { daemon.stop() }
        _ = directory
        // uid 65534 opens 10 connections that never answer their question (the first is being asked,
        // the others of its session wait their turn) and 20 that never finish their request: 16 (the
        // per-user limit) are held, the rest refused at once.
        let flood = try DaemonProcess(
            [
                "/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                builtProductForAnyUser("capability-probe"), "flood", socket, "10", "20",
            ], environment: [:])
        defer { flood.stop() }
        #expect(await flood.nextLine() == "held=16 busy=14")
        #expect(await flood.nextLine() == "ready")
        // Another user, and root, are served while all 16 are held: nothing of theirs is waited for
        // (before, the first silent client's conversation held every other login of the gate).
        let other = try clientRun(
            socket, ["restart", "nginx"], credentials: ["--clear-groups"], input: "secret\n", uid: 4321)
        #expect(other.status == 0, "\(other.standardOutput)\(other.standardError)")
        let root = try clientRun(socket, ["restart", "nginx"], credentials: nil, input: "secret\n")
        #expect(root.status == 0, "\(root.standardOutput)\(root.standardError)")
        // ...and the flood's user itself is refused, not queued, while it holds its 16.
        let same = try clientRun(socket, ["restart", "nginx"], credentials: ["--clear-groups"])
        #expect(
            same.standardOutput.hasPrefix("error: busy: uid 65534 has 16 connections open"), "\(same.standardOutput)")
        kill(flood.pid, SIGUSR1)
        #expect(await flood.nextLine() == "open 16", "the flood's connections were still held: nobody waited them out")
        let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 2, "\(lines)")
    }

    @Test("SIGTERM stops the service: it stops accepting, says so, and exits 0")
    func stopsOnSigterm() async throws {
        let (daemon, socket, _, directory) = try await daemon(policy: Self.policy)
        _ = directory
        #expect(try client(socket, ["restart", "nginx"], credentials: nil).0 == 0)
        kill(daemon.pid, SIGTERM)
        // Other lines may come first: with no journal and no /dev/log here, that the record was lost.
        #expect(await daemon.waitForOutput(containing: "stopped\n"))
        #expect(daemon.waitUntilExit() == 0)
        #expect(!FileManager.default.fileExists(atPath: socket), "the socket file is gone")
    }
}
