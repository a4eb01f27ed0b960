import Foundation
import Glibc
import TestSupport
import Testing

/// `capctl` asking capctld: the built capctl, run as root and as uid 65534 (setpriv), pointed at a
/// running capctld with `CAPCTL_DAEMON_SOCKET`; every answer says who decided.
@Suite(
    "capctl through capctld", .serialized, .enabled(if: geteuid() == 0, "needs root to run capctl as uid 65534"),
    .timeLimit(.minutes(2)))
struct CapctlThroughCapctldTests {
    static let policy = """
        capabilities:
          is-root: { kind: user, user: root }
          admin: { kind: pam, service: capctld-test, user: alice, service-directory: PAM }
          kept-admin: { kind: pam, service: capctld-test, user: alice, service-directory: PAM, keep: 5m }
        gates:
          root-only: { require: is-root, description: Root alone. }
          admin-login: { require: admin }
          kept-login: { require: kept-admin }
        """

    /// capctl as `uid` (nil: root) with `arguments`, asking the capctld at `socket`, its
    /// environment otherwise bare (`extra` added).
    static func capctl(
        _ arguments: [String], socket: String, uid: UInt32? = nil, input: String = "", extra: [String: String] = [:]
    ) throws -> ProcessOutput {
        var command = [builtProduct("capctl")] + arguments
        if let uid { command = ["/usr/bin/setpriv", "--reuid=\(uid)", "--regid=\(uid)", "--clear-groups"] + command }
        let environment = ["PATH": "/usr/bin:/bin", "CAPCTL_DAEMON_SOCKET": socket, "HOME": "/nonexistent"]
            .merging(extra) { _, given in given }
        return try runProcess(command[0], Array(command.dropFirst()), environment: environment, input: input)
    }

    @Test("root: pass lets root's processes through capctld without a login; anyone else is still asked")
    func rootPasses() async throws {
        let daemon = try await CapctldTests.Daemon(
            policy: Self.policy.replacingOccurrences(
                of: "admin: { kind: pam, service: capctld-test, user: alice, service-directory: PAM }",
                with: "admin: { kind: pam, service: capctld-test, user: alice, service-directory: PAM, root: pass }"))
        let root = try Self.capctl(["check", "admin-login", "--non-interactive", "--json"], socket: daemon.socket)
        #expect(root.status == 0 && Self.json(root)["status"] as? String == "holds", "\(root.standardOutput)")
        let nobody = try Self.capctl(
            ["check", "admin-login", "--non-interactive", "--json"], socket: daemon.socket, uid: 65534)
        #expect(Self.json(nobody)["status"] as? String == "needsInteraction", "\(nobody.standardOutput)")
    }

    @Test("with no terminal to ask on, the caller is told so (its own part) though capctld explains to root alone")
    func noTerminalHint() async throws {
        let daemon = try await CapctldTests.Daemon(policy: Self.policy)
        // A session of its own: no controlling terminal, as under cron or a CI job.
        let environment = ["PATH": "/usr/bin:/bin", "CAPCTL_DAEMON_SOCKET": daemon.socket, "HOME": "/nonexistent"]
        let asked = try runProcess(
            "/usr/bin/setsid",
            [
                "--wait", "/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                builtProduct("capctl"), "check", "admin-login",
            ], environment: environment)
        #expect(asked.status != 0, "\(asked.standardOutput)\(asked.standardError)")
        #expect(
            asked.standardOutput.contains("admin-login: dismissed"), "\(asked.standardOutput)\(asked.standardError)")
        #expect(
            asked.standardOutput.contains("dismissed here: no terminal to ask on")
                && asked.standardOutput.contains("--password-stdin"), "\(asked.standardOutput)\(asked.standardError)")
        let json = try runProcess(
            "/usr/bin/setsid",
            [
                "--wait", "/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                builtProduct("capctl"), "check", "admin-login", "--json",
            ], environment: environment)
        #expect(
            (Self.json(json)["unanswered"] as? String)?.hasPrefix("no terminal to ask on") == true,
            "\(json.standardOutput)")
    }

    static func json(_ output: ProcessOutput) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(output.standardOutput.utf8))) as? [String: Any] ?? [:]
    }

    @Test("check asks capctld: each caller is decided as itself, root is told why, an unprivileged caller is not")
    func check() async throws {
        let daemon = try await CapctldTests.Daemon(policy: Self.policy)
        let root = try Self.capctl(["check", "root-only", "--json"], socket: daemon.socket)
        #expect(root.status == 0, "\(root.standardOutput)\(root.standardError)")
        let rootReply = Self.json(root)
        #expect(rootReply["decidedBy"] as? String == "capctld", "\(rootReply)")
        #expect(rootReply["status"] as? String == "holds")
        #expect((rootReply["explanation"] as? [String: Any])?["outcome"] as? String == "passed", "\(rootReply)")

        let nobody = try Self.capctl(["check", "root-only", "--json"], socket: daemon.socket, uid: 65534)
        #expect(nobody.status == 1, "\(nobody.standardOutput)\(nobody.standardError)")
        let nobodyReply = Self.json(nobody)
        #expect(nobodyReply["decidedBy"] as? String == "capctld", "\(nobodyReply)")
        #expect(nobodyReply["status"] as? String == "fails")
        #expect(nobodyReply["description"] as? String == "Root alone.")
        #expect(nobodyReply["explanation"] is NSNull, "told to root only: \(nobodyReply)")

        let explained = try Self.capctl(["check", "root-only", "--explain"], socket: daemon.socket, uid: 65534)
        #expect(
            explained.standardOutput.contains("decided by capctld at \(daemon.socket)"), "\(explained.standardOutput)")
        #expect(explained.standardOutput.contains("capctld tells root only"), "\(explained.standardOutput)")

        let unknown = try Self.capctl(["check", "nowhere"], socket: daemon.socket, uid: 65534)
        #expect(unknown.status == 64, "\(unknown.standardError)")
        #expect(unknown.standardError.contains("capctld's policy has no gate \"nowhere\""), "\(unknown.standardError)")
    }

    @Test("a user's own policy layer never reaches capctld's decisions")
    func userLayerIgnored() async throws {
        let daemon = try await CapctldTests.Daemon(policy: Self.policy)
        // uid 65534's own layer opens root-only for itself: deciding in-process reads it, capctld never does.
        let home = daemon.directory.path + "/home"
        try daemon.directory.write(
            "gates:\n  root-only: { require: { not: is-root } }\n", to: "home/capctl/policy.yaml")
        chown(home, 65534, 65534)
        chown(home + "/capctl", 65534, 65534)
        chown(home + "/capctl/policy.yaml", 65534, 65534)
        let asked = try Self.capctl(
            ["check", "root-only", "--json"], socket: daemon.socket, uid: 65534, extra: ["XDG_CONFIG_HOME": home])
        #expect(asked.status == 1, "\(asked.standardOutput)\(asked.standardError)")
        #expect(Self.json(asked)["decidedBy"] as? String == "capctld")
    }

    @Test("without capctld, or told not to ask it, capctl decides in-process and says why")
    func inProcess() async throws {
        let daemon = try await CapctldTests.Daemon(policy: Self.policy)
        let roots = ["CAPCTL_POLICY_ROOTS": daemon.directory.path + "/etc"]
        let absent = try Self.capctl(
            ["check", "root-only", "--json", "--non-interactive"], socket: daemon.directory.path + "/absent.sock",
            extra: roots)
        let absentReply = Self.json(absent)
        #expect(absentReply["decidedBy"] as? String == "in-process", "\(absentReply)")
        #expect((absentReply["decidedByReason"] as? String)?.contains("capctld was not asked: cannot connect") == true)
        #expect(absent.status == 0)
        let disabled = try Self.capctl(["check", "root-only", "--json"], socket: "", extra: roots)
        #expect((Self.json(disabled)["decidedByReason"] as? String)?.contains("CAPCTL_DAEMON_SOCKET is empty") == true)
    }

    @Test("check relays capctld's password question: the right answer opens the gate, none dismisses it")
    func authorizeThroughCheck() async throws {
        let daemon = try await CapctldTests.Daemon(policy: Self.policy)
        let opened = try Self.capctl(
            ["check", "admin-login", "--password-stdin"], socket: daemon.socket, uid: 65534, input: "secret\n")
        #expect(opened.status == 0, "\(opened.standardOutput)\(opened.standardError)")
        #expect(opened.standardOutput.hasPrefix("admin-login: holds"), "\(opened.standardOutput)")
        let wrong = try Self.capctl(
            ["check", "admin-login", "--password-stdin"], socket: daemon.socket, uid: 65534, input: "wrong\n")
        #expect(wrong.status == 1, "\(wrong.standardOutput)\(wrong.standardError)")
        let none = try Self.capctl(["check", "admin-login", "--password-stdin"], socket: daemon.socket, uid: 65534)
        #expect(none.status == 3, "\(none.standardOutput)\(none.standardError)")
        let asked = try Self.capctl(["check", "admin-login", "--non-interactive"], socket: daemon.socket, uid: 65534)
        #expect(asked.status == 2, "\(asked.standardOutput)\(asked.standardError)")
    }

    @Test("a login capctld keeps counts for the next check of that caller, and authorize --forget ends it")
    func keptByDaemon() async throws {
        let daemon = try await CapctldTests.Daemon(policy: Self.policy)
        let login = try Self.capctl(
            ["authorize", "kept-admin", "--password-stdin"], socket: daemon.socket, uid: 65534, input: "secret\n")
        #expect(login.status == 0, "\(login.standardOutput)\(login.standardError)")
        #expect(login.standardOutput.contains("kept-admin: authorized"), "\(login.standardOutput)")
        // The record is root's, in capctld's directory: uid 65534 could not have written it.
        let records = (try? FileManager.default.contentsOfDirectory(atPath: daemon.directory.path + "/keep")) ?? []
        #expect(!records.isEmpty)
        let kept = try Self.capctl(["check", "kept-login", "--non-interactive"], socket: daemon.socket, uid: 65534)
        #expect(kept.status == 0, "\(kept.standardOutput)\(kept.standardError)")
        let forgot = try Self.capctl(["authorize", "--forget"], socket: daemon.socket, uid: 65534)
        #expect(
            forgot.standardOutput.contains("(1 kept by capctld)"), "\(forgot.standardOutput)\(forgot.standardError)")
        let again = try Self.capctl(["check", "kept-login", "--non-interactive"], socket: daemon.socket, uid: 65534)
        #expect(again.status == 2, "\(again.standardOutput)\(again.standardError)")
    }

    @Test("--extend renews a login capctld keeps without asking; --forget ends this session's, --forget-all every one")
    func extendAndForgetThroughDaemon() async throws {
        let daemon = try await CapctldTests.Daemon(policy: Self.policy)
        let login = ["authorize", "kept-admin", "--password-stdin"]
        #expect(try Self.capctl(login, socket: daemon.socket, uid: 65534, input: "secret\n").status == 0)
        // No password given: only a kept login can be extended.
        let extended = try Self.capctl(login + ["--extend"], socket: daemon.socket, uid: 65534)
        #expect(extended.status == 0, "\(extended.standardOutput)\(extended.standardError)")
        #expect(
            extended.standardOutput.contains("kept login extended by capctld: good for 300 s from now"),
            "\(extended.standardOutput)")
        // Another session of the same user keeps its own.
        let elsewhere = try runProcess(
            "/usr/bin/setsid",
            ["--wait", "/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", builtProduct("capctl")]
                + login,
            environment: ["PATH": "/usr/bin:/bin", "CAPCTL_DAEMON_SOCKET": daemon.socket, "HOME": "/nonexistent"],
            input: "secret\n")
        #expect(elsewhere.status == 0, "\(elsewhere.standardOutput)\(elsewhere.standardError)")
        let forgot = try Self.capctl(["authorize", "--forget"], socket: daemon.socket, uid: 65534)
        #expect(
            forgot.standardOutput.contains("for this terminal and session (1 kept by capctld)"),
            "\(forgot.standardOutput)\(forgot.standardError)")
        #expect(try Self.capctl(login, socket: daemon.socket, uid: 65534, input: "secret\n").status == 0)
        let forgotAll = try Self.capctl(["authorize", "--forget-all"], socket: daemon.socket, uid: 65534)
        #expect(forgotAll.standardOutput.contains("(2 kept by capctld)"), "\(forgotAll.standardOutput)")
    }

    @Test("a login capctld keeps for root in a terminal never counts for another user in that terminal and session")
    func keptNeverAcrossUsers() async throws {
        let daemon = try await CapctldTests.Daemon(policy: Self.policy)
        let password = daemon.directory.path + "/password"
        try "secret\n".write(toFile: password, atomically: true, encoding: .utf8)
        chmod(password, 0o644)
        let capctl = builtProduct("capctl")
        // su --session-command: uid 65534 in root's session, on root's terminal (script's pty).
        let line =
            "'\(capctl)' authorize kept-admin --password-stdin < \(password); '\(capctl)' check kept-login "
            + "--non-interactive; echo root=$?; su --session-command \"'\(capctl)' check kept-login --non-interactive; "
            + "echo nobody=\\$?\" -s /bin/sh nobody"
        let run = try runProcess(
            "/usr/bin/script", ["-qec", line, "/dev/null"],
            environment: ["PATH": "/usr/bin:/bin", "CAPCTL_DAEMON_SOCKET": daemon.socket, "HOME": "/root"])
        #expect(run.standardOutput.contains("root=0"), "\(run.standardOutput)")
        #expect(run.standardOutput.contains("nobody=2"), "\(run.standardOutput)")
    }

    @Test("status lists capctld's gates as it decides them, and watch follows a gate through it")
    func statusAndWatch() async throws {
        let daemon = try await CapctldTests.Daemon(policy: Self.policy)
        let status = try Self.capctl(["status", "--json"], socket: daemon.socket, uid: 65534)
        let gates = Self.json(status)["gates"] as? [[String: Any]] ?? []
        #expect(gates.map { $0["name"] as? String } == ["admin-login", "kept-login", "root-only"], "\(status)")
        #expect(gates.allSatisfy { $0["decidedBy"] as? String == "capctld" }, "\(gates)")
        #expect(gates.first { $0["name"] as? String == "root-only" }?["status"] as? String == "fails")

        let watcher = try DaemonProcess(
            [
                "/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", builtProduct("capctl"),
                "watch", "root-only", "--json",
            ], environment: ["PATH": "/usr/bin:/bin", "CAPCTL_DAEMON_SOCKET": daemon.socket, "HOME": "/nonexistent"])
        defer { watcher.stop() }
        let first = await watcher.nextLine() ?? ""
        #expect(first.contains(#""decidedBy":"capctld""#) && first.contains(#""status":"fails""#), "\(first)")
        try daemon.rewritePolicy(
            Self.policy.replacingOccurrences(
                of: "root-only: { require: is-root,", with: "root-only: { require: { not: is-root },"))
        let second = await watcher.nextLine() ?? ""
        #expect(second.contains(#""status":"holds""#), "\(second)")
    }

    @Test("status --origin gives root the file:line of each gate capctld decides; others are told it is root's to know")
    func originsThroughDaemon() async throws {
        let daemon = try await CapctldTests.Daemon(policy: Self.policy)
        func origins(_ uid: UInt32?) throws -> [String: String] {
            let status = try Self.capctl(["status", "--origin", "--json"], socket: daemon.socket, uid: uid)
            let gates = Self.json(status)["gates"] as? [[String: Any]] ?? []
            return Dictionary(
                uniqueKeysWithValues: gates.compactMap { gate in
                    (gate["name"] as? String).map {
                        ($0, (gate["origin"] as? [String: Any])?["location"] as? String ?? "")
                    }
                })
        }
        let root = try origins(nil)
        #expect(root["root-only"]?.hasSuffix("policy.yaml:6:3") == true, "\(root)")
        #expect(root["kept-login"]?.hasSuffix("policy.yaml:8:3") == true, "\(root)")
        let nobody = try origins(65534)
        #expect(nobody["root-only"] == "capctld's policy (where: told to root only)", "\(nobody)")
    }

    @Test("a service at the socket that runs as another user is not trusted: capctl decides in-process and says why")
    func untrustedService() async throws {
        let directory = try TemporaryDirectory(prefix: "capctld-impostor")
        chmod(directory.path, 0o755)
        try directory.write(
            "capabilities:\n  nobody: { kind: user, user: nobody }\ngates:\n  root-only: { require: { not: nobody } }\n",
            to: "etc/policy.yaml")
        chmod(directory.path + "/etc", 0o755)
        // Where uid 65534 may make its socket.
        mkdir(directory.path + "/run", 0o777)
        chmod(directory.path + "/run", 0o777)
        let socket = directory.path + "/run/impostor.sock"
        // An impostor: capctld itself, run as uid 65534 with a policy that opens everything.
        let impostor = try DaemonProcess(
            [
                "/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", builtProduct("capctld"),
                "--policy-roots", directory.path + "/etc", "--listen", socket, "--audit-socket",
                directory.path + "/run/a",
            ], environment: ["PATH": "/usr/bin:/bin", "CAPCTL_KEEP_DIRECTORY": directory.path + "/run/keep"])
        defer { impostor.stop() }
        #expect(await impostor.waitForOutput(containing: "capctld: listening on \(socket)"))
        let daemon = try await CapctldTests.Daemon(policy: Self.policy)
        let asked = try Self.capctl(
            ["check", "root-only", "--json", "--non-interactive"], socket: socket, uid: nil,
            extra: ["CAPCTL_POLICY_ROOTS": daemon.directory.path + "/etc"])
        let reply = Self.json(asked)
        #expect(reply["decidedBy"] as? String == "in-process", "\(reply)")
        #expect((reply["decidedByReason"] as? String)?.contains("runs as uid 65534") == true, "\(reply)")
    }

    @Test("watch with no names follows every gate capctld decides, however many: one watch, not one per gate")
    func watchEveryGate() async throws {
        // Six gates: more than the four watches a user may hold open.
        let gates = (1...6).map { "  gate-\($0): { require: is-root }" }.joined(separator: "\n")
        let daemon = try await CapctldTests.Daemon(
            policy: "capabilities:\n  is-root: { kind: user, user: root }\ngates:\n" + gates + "\n")
        let watcher = try DaemonProcess(
            [
                "/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", builtProduct("capctl"),
                "watch", "--json",
            ], environment: ["PATH": "/usr/bin:/bin", "CAPCTL_DAEMON_SOCKET": daemon.socket, "HOME": "/nonexistent"])
        defer { watcher.stop() }
        var seen: Set<String> = []
        // This host's own capabilities come too (no policy file here): only the gates count.
        for _ in 1...40 where seen.count < 6 {
            let line = await watcher.nextLine() ?? ""
            guard line.contains(#""type":"gate""#) else { continue }
            #expect(line.contains(#""decidedBy":"capctld""#) && line.contains(#""status":"fails""#), "\(line)")
            if let name = line.split(separator: "\"").drop(while: { $0 != "name" }).dropFirst(2).first {
                seen.insert(String(name))
            }
        }
        #expect(seen == Set((1...6).map { "gate-\($0)" }), "\(seen)")
    }
}
