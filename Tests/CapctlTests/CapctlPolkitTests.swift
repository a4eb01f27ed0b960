import Foundation
import TestSupport
import Testing

/// capctl with polkit: status shows whether polkit answers; gates on polkit actions, checked as
/// uid 65534 against a private polkitd (TestSupport's PolkitFixture); the agent answered through
/// --password-stdin; `run --capabilities`.
@Suite(
    "capctl with polkit", .serialized,
    .enabled(if: PolkitFixture.isAvailable, "needs root, polkitd and dbus-daemon (Scripts/test installs them)"))
struct CapctlPolkitTests {
    static let rules = """
        polkit.addRule(function(action, subject) {
          if (action.id == "org.example.backup.status") return polkit.Result.YES;
          if (action.id == "org.example.backup.purge") return polkit.Result.NO;
          if (action.id == "org.example.backup.restore") return polkit.Result.AUTH_SELF;
        });

        """

    /// A gate that a fake polkit's "no" would open.
    static let notPurge = """
        capabilities:
          purge: { kind: polkit, action: org.example.backup.purge }
        gates:
          not-purge: { require: { not: purge } }
        """

    private func fixture() async throws -> PolkitFixture {
        try await PolkitFixture(
            actions: [
                "org.example.backup.status": "Read the backup status",
                "org.example.backup.purge": "Purge backups",
                "org.example.backup.restore": "Restore a backup",
            ], rules: Self.rules)
    }

    private func tree() throws -> PolicyTree {
        let tree = try PolicyTree()
        try tree.write(
            "etc/policy.yaml",
            """
            capabilities:
              read-status: { kind: polkit, action: org.example.backup.status }
              purge: { kind: polkit, action: org.example.backup.purge }
              restore: { kind: polkit, action: org.example.backup.restore, keep: false }
              missing: { kind: polkit, action: org.example.backup.unknown }
            gates:
              status: { require: read-status }
              purge: { require: purge }
              restore: { require: restore }
              not-purge: { require: { not: missing } }
            """)
        return tree
    }

    private let nobody = [
        "/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", PolicyTree.sharedCapctl,
    ]

    @Test(
        "only one unix:path= bus address is used: unixexec, tcp, abstract sockets and lists are refused, nothing is started, no gate opens",
        arguments: [
            "unixexec:path=/bin/sh,argv0=sh,argv1=-c,argv2=touch%20MARKER", "tcp:host=127.0.0.1,port=9",
            "unix:abstract=capctl-test", "unix:path=/run/dbus/system_bus_socket;unixexec:path=/bin/true",
            "unix:path=relative/socket", "unix:path=/run/dbus/system_bus_socket,argv1=x", "unix:path=/a%2",
        ])
    func onlySocketPathAddresses(address: String) async throws {
        let tree = try tree()
        try tree.write("etc/policy.yaml", Self.notPurge)
        let marker = tree.root + "/started"
        let environment = ["DBUS_SYSTEM_BUS_ADDRESS": address.replacingOccurrences(of: "MARKER", with: marker)]
        for command in [[PolicyTree.capctl], nobody] {
            let check = try tree.run(command + ["check", "not-purge"], extraEnvironment: environment)
            #expect(check.status == 1, "\(address): \(check.output)")
            #expect(check.output.contains("not-purge: undecided"), "\(check.output)")
            #expect(check.output.contains("only a single unix:path= address is accepted"), "\(check.output)")
        }
        #expect(!FileManager.default.fileExists(atPath: marker), "a program named by the address was started")
    }

    @Test("a bus name owned by a connection that is not root's or polkitd's is not polkit: its 'no' opens no gate")
    func impostorOnTrustedBus() async throws {
        // A bus run by root whose policy lets uid 65534 own polkit's name, and no polkitd.
        let fixture = try await PolkitFixture(
            actions: [:], rules: "", startsPolkit: false,
            busPolicy: #"<policy user="nobody"><allow own="org.freedesktop.PolicyKit1"/></policy>"#)
        var environment = fixture.environment
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = fixture.busAddress
        let impostor = try DaemonProcess(
            [
                "/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                builtProductForAnyUser("capability-probe"), "polkit-impostor",
            ], environment: environment)
        defer { impostor.stop() }
        #expect(await impostor.nextLine() == "owner")
        let tree = try PolicyTree()
        try tree.write("etc/policy.yaml", Self.notPurge)
        for command in [[PolicyTree.capctl], nobody] {
            let check = try tree.run(
                command + ["check", "not-purge"], extraEnvironment: ["DBUS_SYSTEM_BUS_ADDRESS": fixture.busAddress])
            #expect(check.status == 1, "\(check.output)")
            #expect(check.output.contains("runs as uid 65534, not as root or polkitd"), "\(check.output)")
        }
    }

    @Test("status shows polkitd answering, and unavailable without a bus")
    func statusShowsPolkit() async throws {
        let fixture = try await fixture()
        let tree = try PolicyTree()
        let shown = try tree.run(
            [PolicyTree.capctl, "status", "--json"], extraEnvironment: ["DBUS_SYSTEM_BUS_ADDRESS": fixture.busAddress])
        let object = try #require(try shown.json() as? [String: Any])
        let entries = try #require(object["capabilities"] as? [[String: Any]])
        let polkit = try #require(entries.first { $0["name"] as? String == "polkit" })
        #expect(polkit["status"] as? String == "authorized")
        #expect((polkit["reason"] as? String)?.contains("answers on the system bus") == true)
        let missing = try tree.run(
            [PolicyTree.capctl, "status", "--json"],
            extraEnvironment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=\(tree.root)/no-bus"])
        let others = try #require(try missing.json() as? [String: Any])["capabilities"] as? [[String: Any]]
        let absent = others?.first { $0["name"] as? String == "polkit" }
        #expect(absent?["status"] as? String == "unavailable")
    }

    @Test("check gates on polkit's answers as uid 65534: yes 0, no 1, would ask 2, unknown action fails closed")
    func checkGates() async throws {
        let fixture = try await fixture()
        let tree = try tree()
        let bus = ["DBUS_SYSTEM_BUS_ADDRESS": fixture.busAddress]
        #expect(try tree.run(nobody + ["check", "status"], extraEnvironment: bus).status == 0)
        #expect(try tree.run(nobody + ["check", "purge"], extraEnvironment: bus).status == 1)
        #expect(try tree.run(nobody + ["check", "restore", "--non-interactive"], extraEnvironment: bus).status == 2)
        // not: of an action polkit does not know stays shut: unknown is not "no".
        let negated = try tree.run(nobody + ["check", "not-purge"], extraEnvironment: bus)
        #expect(negated.status != 0)
        #expect(negated.output.contains("no .policy file declares it"), "\(negated.output)")
        // With polkitd gone, a gate that was open is shut.
        fixture.stopPolkit()
        #expect(try tree.run(nobody + ["check", "status"], extraEnvironment: bus).status != 0)
    }

    @Test(
        "run asks through capctl's agent: --password-stdin answers polkit's helper",
        .enabled(if: PAMTestModules.matrix != nil, "needs libpam-wrapper"))
    func runThroughTheAgent() async throws {
        let fixture = try await fixture()
        let tree = try tree()
        let matrix = try #require(PAMTestModules.matrix)
        let passdb = try tree.write("pam/passdb", "nobody:right:polkit-1\n")
        let service = "auth required \(matrix) passdb=\(passdb)\naccount required \(matrix) passdb=\(passdb)\n"
        let command = try fixture.agentNamespace(
            pamService: service,
            command: [PolicyTree.sharedCapctl, "run", "restore", "--password-stdin", "--", "/bin/echo", "restored"])
        let bus = ["DBUS_SYSTEM_BUS_ADDRESS": fixture.busAddress]
        let granted = try tree.run(command, extraEnvironment: bus, input: "right\n")
        #expect(granted.status == 0, "\(granted.error)")
        #expect(granted.output == "restored\n")
        let refused = try tree.run(command, extraEnvironment: bus, input: "wrong\n")
        #expect(refused.status == 77)
        #expect(refused.output.isEmpty)
        #expect(refused.error.contains("Authentication failure"), "\(refused.error)")
    }

    @Test("validate: a malformed action id or details are load errors with their positions")
    func validateChecksPolkitSettings() throws {
        let tree = try PolicyTree()
        let file = try tree.write(
            "etc/policy.yaml",
            """
            capabilities:
              bad-id: { kind: polkit, action: Org.Example.Restore }
              bad-details: { kind: polkit, action: org.example.restore, details: { volume: 3 } }
              reserved: { kind: polkit, action: org.example.restore, details: { polkit.message: "Type it here" } }
            """)
        let run = try tree.capctl(["validate"])
        #expect(run.status == 78)
        #expect(run.output.contains("\(file):2:"), "\(run.output)")
        #expect(run.output.contains("not a polkit action id"), "\(run.output)")
        #expect(run.output.contains("\(file):3:"), "\(run.output)")
        #expect(run.output.contains("\"volume\" must be a string"), "\(run.output)")
        #expect(run.output.contains("\(file):4:"), "\(run.output)")
        #expect(run.output.contains("is reserved"), "\(run.output)")
    }

    @Test("run --capabilities starts the command with exactly those capabilities, or refuses")
    func runWithCapabilities() throws {
        let tree = try PolicyTree()
        try tree.write(
            "etc/policy.yaml", "capabilities:\n  tmp: { kind: file, path: /tmp }\ngates:\n  open: { require: tmp }\n")
        let confined = try tree.capctl(
            ["run", "open", "--capabilities", "CAP_NET_BIND_SERVICE", "--", "/bin/grep", "^Cap", "/proc/self/status"])
        #expect(confined.status == 0, "\(confined.error)")
        for field in ["CapPrm", "CapEff", "CapBnd", "CapAmb", "CapInh"] {
            #expect(confined.output.contains("\(field):\t0000000000000400"), "\(field) in \(confined.output)")
        }
        let none = try tree.capctl([
            "run", "open", "--capabilities", "", "--", "/bin/grep", "^CapBnd", "/proc/self/status",
        ])
        #expect(none.output == "CapBnd:\t0000000000000000\n")
        let misspelt = try tree.capctl(["run", "open", "--capabilities", "CAP_NET_BIND_SERVCE", "--", "/bin/true"])
        #expect(misspelt.status == 64)
        #expect(misspelt.error.contains("did you mean CAP_NET_BIND_SERVICE?"))
        // uid 65534 holds nothing to pass on: refused, the command does not run.
        let unprivileged = try tree.capctl(
            ["run", "open", "--capabilities", "CAP_NET_BIND_SERVICE", "--", "/bin/echo", "ran"], as: .nobody)
        #expect(unprivileged.status == 77)
        #expect(unprivileged.output.isEmpty)
        #expect(unprivileged.error.contains("does not hold CAP_NET_BIND_SERVICE"))
    }
}
