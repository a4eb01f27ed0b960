import Foundation
import Glibc
import TestSupport
import Testing

/// The polkit bridge (Packaging/polkit/50-capctl.rules): programs that ask polkit are answered by
/// capctl gates. A private polkitd runs the shipped rules file, its map naming the test's actions
/// and gates; its `polkit.spawn` asks capctld through `capctl polkit-decide`; pkcheck, asking polkit
/// for a process of uid 65534, must answer yes, no or "auth needed" exactly as the gate holds,
/// fails (or is undecided) or asks.
@Suite(
    "polkit bridge", .serialized,
    .enabled(if: PolkitFixture.isAvailable, "needs root, polkitd and dbus-daemon"), .timeLimit(.minutes(2)))
struct PolkitBridgeTests {
    static let policy = """
        capabilities:
          is-root: { kind: user, user: root }
          is-nobody: { kind: user, user: nobody }
          operators: { kind: group, group: "4242" }
          admin: { kind: pam, service: capctld-test, user: alice, service-directory: PAM }
          missing: { kind: file, path: /nonexistent/dir }
        flags:
          inline: { flags: { on: { state: ENABLED, variants: { "y": true, "n": false }, defaultVariant: "y" }, off: { state: ENABLED, variants: { "y": true, "n": false }, defaultVariant: "n" } } }
        gates:
          nobody-only: { require: is-nobody }
          root-only: { require: is-root }
          login: { require: admin }
          not-root: { require: { not: is-root } }
          root-or-nobody: { require: { any-of: [is-root, is-nobody] } }
          root-and-nobody: { require: { all-of: [is-nobody, is-root] } }
          operators-only: { require: operators }
          flag-on: { require: { flag: on } }
          flag-off: { require: { flag: off } }
          root-or-login: { require: { any-of: [is-root, admin] } }
          undecided: { require: missing }
        """

    /// Each action, its gate (nil: not in the bridge's map) and pkcheck's exit status for a
    /// process of uid 65534: 0 authorized, 1 not, 2 authentication needed.
    static let cases: [(action: String, gate: String?, pkcheck: Int32)] = [
        ("org.example.bridge.nobody-only", "nobody-only", 0),
        ("org.example.bridge.root-only", "root-only", 1),
        ("org.example.bridge.login", "login", 2),
        ("org.example.bridge.not-root", "not-root", 0),
        ("org.example.bridge.root-or-nobody", "root-or-nobody", 0),
        ("org.example.bridge.root-and-nobody", "root-and-nobody", 1),
        ("org.example.bridge.operators-only", "operators-only", 1),
        ("org.example.bridge.flag-on", "flag-on", 0),
        ("org.example.bridge.flag-off", "flag-off", 1),
        ("org.example.bridge.root-or-login", "root-or-login", 2),
        ("org.example.bridge.undecided", "undecided", 1),
        ("org.example.bridge.no-such-gate", "no-such-gate", 1),
        // Not in the map: left to the action's defaults (no).
        ("org.example.bridge.unmapped", nil, 1),
    ]

    /// The shipped rules file with the test's map, socket and capctl.
    static func rules(socket: String, capctl: String) throws -> String {
        let shipped = try String(
            contentsOfFile: URL(fileURLWithPath: #filePath).deletingLastPathComponent().path
                + "/../../Packaging/polkit/50-capctl.rules", encoding: .utf8)
        let map = cases.compactMap { item in item.gate.map { "        \"\(item.action)\": \"\($0)\"" } }
            .joined(separator: ",\n")
        let example = "        \"org.freedesktop.systemd1.manage-units\": \"restart-unit\""
        #expect(shipped.contains(example) && shipped.contains("\"/usr/bin/capctl\""))
        return shipped.replacingOccurrences(of: example, with: map)
            .replacingOccurrences(of: "\"/run/capctl/capctld.sock\"", with: "\"\(socket)\"")
            .replacingOccurrences(of: "\"/usr/bin/capctl\"", with: "\"\(capctl)\"")
    }

    @Test("pkcheck answers yes, no or auth needed for 13 actions exactly as their gates hold, fail or ask")
    func pkcheckFollowsTheGates() async throws {
        let daemon = try await CapctldTests.Daemon(policy: Self.policy)
        let capctl = builtProductForAnyUser("capctl")
        let fixture = try await PolkitFixture(
            actions: Dictionary(uniqueKeysWithValues: Self.cases.map { ($0.action, "bridge test \($0.action)") }),
            rules: try Self.rules(socket: daemon.socket, capctl: capctl))
        // Read once it runs as 65534: polkit authorizes uid 0 for everything, rules or not.
        let subject = try DaemonProcess(
            [
                "/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "/bin/sh", "-c",
                "echo ready; exec /bin/sleep 120",
            ], environment: ["PATH": "/usr/bin:/bin"])
        defer { subject.stop() }
        #expect(await subject.nextLine() == "ready")
        let reference = try #require(DaemonProcess.processReference(subject.pid))
        #expect(reference.hasSuffix(",65534"), "\(reference)")
        for item in Self.cases {
            let pkcheck = try runProcess(
                "/usr/bin/pkcheck", ["--action-id", item.action, "--process", reference],
                environment: fixture.environment)
            #expect(
                pkcheck.status == item.pkcheck,
                "\(item.action) (gate \(item.gate ?? "none")): pkcheck \(pkcheck.status): \(pkcheck.standardOutput)\(pkcheck.standardError)"
            )
        }
    }

    @Test("capctld lets polkitd's user ask CheckForSubject, as it lets root; other users are refused")
    func polkitdIsTrusted() async throws {
        let daemon = try await CapctldTests.Daemon(policy: Self.policy)
        // The reentrant lookup: tests run side by side, and getpwnam's buffer is shared.
        var entry = passwd()
        var buffer = [CChar](repeating: 0, count: 16_384)
        var found: UnsafeMutablePointer<passwd>?
        getpwnam_r("polkitd", &entry, &buffer, buffer.count, &found)
        let polkitd = try #require(found?.pointee.pw_uid, "no polkitd user")
        let asked = try CapctldTests.client(
            daemon.socket, ["check-subject", "nobody-only", "user=nobody"], uid: polkitd)
        #expect(CapctldTests.decision(asked.first)["outcome"] as? String == "holds", "\(asked)")
        let explanation = CapctldTests.decision(asked.first)["explanation"]
        #expect(explanation == nil || explanation is NSNull, "the explanation is root's: \(asked)")
        let refused = try CapctldTests.client(
            daemon.socket, ["check-subject", "nobody-only", "user=nobody"], uid: 65534)
        #expect(refused.first?["error"] as? String == "org.varlink.service.PermissionDenied", "\(refused)")
    }
}
