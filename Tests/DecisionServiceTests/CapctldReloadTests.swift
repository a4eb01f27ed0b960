import Foundation
import Glibc
import TestSupport
import Testing

/// What capctld says of the policy it serves: each reload, loaded or not (an edit followed by
/// inotify, SIGHUP), with each error's file:line:column and the policy still served; root sees
/// the same through ServedPolicy, Status and capctl; an unprivileged caller learns no file:line.
@Suite(.enabled(if: geteuid() == 0, "needs root to run clients as uid 65534"), .timeLimit(.minutes(2)))
struct CapctldReloadTests {
    /// A gate on a capability nobody declared: a policy that does not load, at a known place.
    static let broken = CapctldTests.policy + "\n  broken: { require: nobody-declared-this }\n"

    @Test(
        "an edit that does not load is said with its file:line:column and the policy still served; SIGHUP says it again; a fixed edit says loaded"
    )
    func reloadsAreSaid() async throws {
        let daemon = try await CapctldTests.Daemon()
        let file = daemon.policyFile
        #expect(
            daemon.startLines.contains { $0.contains("policy loaded: 3 gate(s) from \(file)") }, "\(daemon.startLines)")

        try daemon.rewritePolicy(Self.broken)
        let failed = await daemon.lines(through: "policy not loaded")
        #expect(failed.contains { $0.contains(file + ":") && $0.contains("nobody-declared-this") }, "\(failed)")
        #expect(failed.last?.contains("still serving the policy loaded at 20") == true, "\(failed)")

        // Root's view through the service, and through capctl.
        let served = try CapctldTests.raw(daemon, [#"{"method": "org.capctl.gates.ServedPolicy"}"#]).first
        let policy = (served?["parameters"] as? [String: Any])?["policy"] as? [String: Any]
        let problems = policy?["problems"] as? [String] ?? []
        #expect(problems.count == 1 && problems.first?.hasPrefix(file + ":") == true, "\(served ?? [:])")
        #expect((policy?["loadedAt"] as? String)?.hasSuffix("Z") == true, "\(served ?? [:])")
        let explained = try CapctlThroughCapctldTests.capctl(
            ["check", "root-only", "--explain"], socket: daemon.socket)
        #expect(
            explained.standardOutput.contains("the policy files do not load; still serving the policy loaded at"),
            "\(explained.standardOutput)")
        #expect(explained.standardOutput.contains(file + ":"), "\(explained.standardOutput)")
        let status = try CapctlThroughCapctldTests.capctl(["status"], socket: daemon.socket)
        #expect(status.standardError.contains("the policy files do not load"), "\(status.standardError)")
        let refused = try CapctldTests.raw(daemon, [#"{"method": "org.capctl.gates.ServedPolicy"}"#], uid: 65534)
        #expect(refused.first?["error"] as? String == "org.varlink.service.PermissionDenied", "\(refused)")

        // The same failure again at SIGHUP: the operator who asked is told again.
        kill(daemon.process.pid, SIGHUP)
        let again = await daemon.lines(through: "policy not loaded")
        #expect(again.contains { $0.contains(file + ":") }, "\(again)")

        try daemon.rewritePolicy(CapctldTests.policy)
        let loaded = await daemon.lines(through: "policy loaded:")
        #expect(loaded.last?.contains("3 gate(s) from \(file)") == true, "\(loaded)")
        let fixed = try CapctlThroughCapctldTests.capctl(["check", "root-only", "--explain"], socket: daemon.socket)
        #expect(!fixed.standardOutput.contains("do not load"), "\(fixed.standardOutput)")
    }

    @Test(
        "with no policy in force, root is told the file:line:column, an unprivileged caller only that it does not load")
    func unavailablePolicy() async throws {
        let daemon = try await CapctldTests.Daemon(policy: Self.broken)
        #expect(
            daemon.startLines.contains { $0.contains("no policy in force") }, "\(daemon.startLines)")
        let check = #"{"method": "org.capctl.gates.Check", "parameters": {"gate": "root-only"}}"#
        let root = try CapctldTests.raw(daemon, [check]).first
        #expect(root?["error"] as? String == "org.capctl.gates.PolicyUnavailable", "\(root ?? [:])")
        let rootReason = (root?["parameters"] as? [String: Any])?["reason"] as? String ?? ""
        #expect(rootReason.hasPrefix(daemon.policyFile + ":"), "\(rootReason)")
        let nobody = try CapctldTests.raw(daemon, [check], uid: 65534).first
        #expect(nobody?["error"] as? String == "org.capctl.gates.PolicyUnavailable", "\(nobody ?? [:])")
        let reason = (nobody?["parameters"] as? [String: Any])?["reason"] as? String ?? ""
        #expect(!reason.isEmpty && !reason.contains("/") && !reason.contains("nobody-declared-this"), "\(reason)")
    }

    @Test(
        "no audit sink is said at start; --listen makes the socket's missing directories, mode 0755 whatever the umask")
    func startWarnings() async throws {
        let directory = try TemporaryDirectory(prefix: "capctld-listen")
        try directory.write(
            CapctldTests.policy.replacingOccurrences(of: "PAM", with: "/nonexistent"), to: "etc/policy.yaml")
        let socket = directory.path + "/run/capctl/capctld.sock"
        let process = try DaemonProcess(
            [
                "/bin/sh", "-c", "umask 077 && exec \"$0\" \"$@\"", builtProduct("capctld"), "--policy-roots",
                directory.path + "/etc", "--listen", socket, "--audit-socket", directory.path + "/no-syslog-here",
            ],
            environment: ["PATH": "/usr/bin:/bin"])
        defer { process.stop() }
        var said: [String] = []
        while let line = await process.nextLine() {
            said.append(line)
            if line.contains("listening on") { break }
        }
        #expect(said.last == "capctld: listening on \(socket)", "\(said)")
        #expect(
            said.contains { $0.contains("no audit sink: no system log listens at \(directory.path)/no-syslog-here") },
            "\(said)")
        // How long an answer is given again (--reuse-for, 1 s unless told).
        #expect(said.contains { $0.contains("answers a connection's Check again for up to 1 s") }, "\(said)")
        for made in ["/run", "/run/capctl"] {
            var status = stat()
            #expect(stat(directory.path + made, &status) == 0)
            #expect(status.st_mode & 0o7777 == 0o755, "\(made): \(String(status.st_mode & 0o7777, radix: 8))")
        }
    }
}
