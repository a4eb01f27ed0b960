import CLinuxSupport
import Capabilities
import Foundation
import Glibc
import LinuxBackends
import TestSupport
import Testing

/// polkit against the real thing: a private bus and polkitd with the test's actions and rules
/// (TestSupport's PolkitFixture), asked by the probe as root and as uid 65534, and compared with
/// pkcheck, polkit's own client. Docs/Backends/Polkit.md.
@Suite(
    "polkit", .serialized,
    .enabled(if: PolkitFixture.isAvailable, "needs root, polkitd and dbus-daemon (Scripts/test installs them)"))
struct PolkitAuthorizationTests {
    static let actions = [
        "org.example.test.yes": "Test yes", "org.example.test.no": "Test no", "org.example.test.self": "Test self",
        "org.example.test.admin": "Test admin", "org.example.test.edit": "Test edit",
    ]
    static let rules = """
        polkit.addRule(function(action, subject) {
          if (action.id == "org.example.test.yes") return polkit.Result.YES;
          if (action.id == "org.example.test.no") return polkit.Result.NO;
          if (action.id == "org.example.test.self") return polkit.Result.AUTH_SELF_KEEP;
          if (action.id == "org.example.test.admin") return polkit.Result.AUTH_ADMIN;
        });
        polkit.addAdminRule(function(action, subject) { return ["unix-user:0"]; });

        """

    func nobody(_ fixture: PolkitFixture, _ arguments: [String], input: String = "") throws -> [CapabilityStatus?] {
        try Probe.statuses(
            ["polkit"] + arguments, via: ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"],
            environment: fixture.environment, input: input)
    }

    /// pkcheck's answer for a process of uid 65534: 0 authorized, 1 not authorized, 2 needs authentication.
    func pkcheck(_ fixture: PolkitFixture, _ action: String) throws -> Int32 {
        try runProcess(
            "/usr/bin/setpriv",
            [
                "--reuid=65534", "--regid=65534", "--clear-groups", "/bin/sh", "-c",
                "exec pkcheck --action-id \(action) --process $$",
            ],
            environment: fixture.environment
        ).status
    }

    @Test("status maps polkitd's answers as pkcheck reports them, for uid 65534 and for root")
    func statusMapsAnswers() async throws {
        let fixture = try await PolkitFixture(actions: Self.actions, rules: Self.rules)
        let expected: [(String, CapabilityStatus.Kind, Int32)] = [
            ("org.example.test.yes", .authorized, 0), ("org.example.test.no", .denied, 1),
            ("org.example.test.self", .notDetermined, 2), ("org.example.test.admin", .notDetermined, 2),
        ]
        for (action, kind, pkcheckStatus) in expected {
            #expect(try nobody(fixture, [action, "status"]).first??.kind == kind, "\(action)")
            #expect(try pkcheck(fixture, action) == pkcheckStatus, "\(action)")
            // polkit authorizes root for everything, without asking.
            let root = try Probe.statuses(["polkit", action, "status"], environment: fixture.environment)
            #expect(root.first??.kind == .authorized, "\(action) as root")
        }
        let unknown = try nobody(fixture, ["org.example.test.unknown", "status"]).first!!
        #expect(unknown.kind == .unavailable)
        #expect(unknown.reason.contains("no .policy file declares it"))
    }

    @Test("details from a caller polkit does not trust are refused, and the gate stays shut (unavailable)")
    func untrustedDetails() async throws {
        let fixture = try await PolkitFixture(actions: Self.actions, rules: Self.rules)
        let status = try nobody(fixture, ["org.example.test.yes", "status", "detail:volume=/srv"]).first!!
        #expect(status.kind == .unavailable)
        #expect(status.reason.contains("Only trusted callers"))
        // Root is trusted: the same details are accepted.
        let root = try Probe.statuses(
            ["polkit", "org.example.test.yes", "status", "detail:volume=/srv"], environment: fixture.environment)
        #expect(root.first??.kind == .authorized)
    }

    @Test("a rule edited while polkitd runs changes the answer")
    func ruleEditedWhileRunning() async throws {
        let fixture = try await PolkitFixture(actions: Self.actions, rules: Self.rules)
        #expect(try nobody(fixture, ["org.example.test.edit", "status"]).first??.kind == .denied)
        try await fixture.writeRules(
            Self.rules + """
                polkit.addRule(function(action, subject) {
                  if (action.id == "org.example.test.edit" && subject.user == "nobody") return polkit.Result.YES;
                });

                """)
        #expect(try nobody(fixture, ["org.example.test.edit", "status"]).first??.kind == .authorized)
    }

    @Test("without polkitd, or without a bus, polkit capabilities are unavailable: fail closed")
    func polkitdStopped() async throws {
        let fixture = try await PolkitFixture(actions: Self.actions, rules: Self.rules)
        #expect(try nobody(fixture, ["org.example.test.yes", "status"]).first??.kind == .authorized)
        fixture.stopPolkit()
        let stopped = try nobody(fixture, ["org.example.test.yes", "status"]).first!!
        #expect(stopped.kind == .unavailable)
        #expect(stopped.reason.contains("polkit is not running"))
        var environment = fixture.environment
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = "unix:path=" + fixture.directory.path(of: "no-such-socket")
        let noBus = try Probe.statuses(
            ["polkit", "org.example.test.yes", "status"],
            via: ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"],
            environment: environment
        ).first!!
        #expect(noBus.kind == .unavailable)
        #expect(noBus.reason.contains("no system bus"))
    }

    @Test("a bus that root or messagebus does not run is not trusted, whatever answers on it")
    func untrustedBus() async throws {
        let directory = try TemporaryDirectory(prefix: "polkit-fake-bus")
        let sockets = try directory.directory("sockets", mode: 0o777)
        let configuration = try directory.write(
            """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>system</type>
              <listen>unix:path=\(sockets)/bus</listen>
              <auth>EXTERNAL</auth>
              <policy context="default"><allow user="*"/><allow own="*"/><allow send_type="method_call"/></policy>
            </busconfig>
            """, to: "bus.conf")
        // A user's own bus, where that user could own org.freedesktop.PolicyKit1 and answer yes.
        let bus = try DaemonProcess(
            [
                "/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/dbus-daemon",
                "--config-file=" + configuration, "--nofork", "--print-address",
            ], environment: ProcessInfo.processInfo.environment)
        defer { bus.stop() }
        let address = try #require(await bus.nextLine())
        #expect(address.hasPrefix("unix:"))
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = "unix:path=\(sockets)/bus"
        let status = try #require(
            try Probe.statuses(["polkit", "org.example.test.yes", "status"], environment: environment).first ?? nil)
        #expect(status.kind == .unavailable)
        #expect(status.reason.contains("run by uid 65534, not by root or messagebus"), "\(status.reason)")
    }

    // The limit is the assertion's other half: sd-bus alone waits 90 s for a handshake.
    @Test(
        "a bus that never answers is given up on within the check's time limit, not sd-bus's 90 seconds",
        .timeLimit(.minutes(2)))
    func silentBus() throws {
        let directory = try TemporaryDirectory(prefix: "polkit-silent-bus")
        let path = directory.path + "/bus"
        // A socket root listens on and nobody accepts from: connecting works, the handshake never does.
        let listener = clinux_unix_socket(path, Int32(SOCK_STREAM.rawValue), CLINUX_UNIX_LISTEN)
        #expect(listener >= 0)
        defer { close(listener) }
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = "unix:path=\(path)"
        let status = try #require(
            try Probe.statuses(["polkit", "org.example.test.yes", "status", "timeout:300"], environment: environment)
                .first ?? nil)
        #expect(status.kind == .unavailable, "\(status)")
        #expect(status.reason.contains("no answer on the system bus within the time allowed"), "\(status.reason)")
    }

    /// The probe as uid 65534 in a namespace where polkit's helper uses a pam_matrix stack with these passwords.
    func authorize(
        _ fixture: PolkitFixture, _ arguments: [String], passwords: [String], input: String
    ) throws -> [CapabilityStatus?] {
        let matrix = try #require(PAMTestModules.matrix)
        let passdb = try fixture.directory.write(passwords.joined(separator: "\n") + "\n", to: "passdb")
        let service = "auth required \(matrix) passdb=\(passdb)\naccount required \(matrix) passdb=\(passdb)\n"
        let command = try fixture.agentNamespace(
            pamService: service, command: [Probe.executable, "polkit"] + arguments)
        return try Probe.statuses(ofCommand: command, environment: fixture.environment, input: input)
    }

    @Test(
        "authorize asks through an agent of its own, against a PAM stack the test controls",
        .enabled(if: PAMTestModules.matrix != nil, "needs libpam-wrapper"))
    func authorizeThroughTheAgent() async throws {
        let fixture = try await PolkitFixture(actions: Self.actions, rules: Self.rules)
        let passwords = ["nobody:right:polkit-1", "root:admin:polkit-1"]
        // auth_self_keep: the right password authorizes, and polkit keeps it for this process.
        let granted = try authorize(
            fixture, ["org.example.test.self", "authorize"], passwords: passwords, input: "right\n")
        #expect(granted.map { $0?.kind } == [.authorized, .authorized])
        // A wrong password is a denial with PAM's reason; nothing is kept.
        let wrong = try authorize(
            fixture, ["org.example.test.self", "authorize"], passwords: passwords, input: "wrong\n")
        #expect(wrong.map { $0?.kind } == [.denied, .notDetermined])
        #expect(wrong[0]?.reason.contains("Authentication failure") == true)
        // No answer (end of input) is a dismissal: notDetermined, not denied.
        let dismissed = try authorize(fixture, ["org.example.test.self", "authorize"], passwords: passwords, input: "")
        #expect(dismissed.map { $0?.kind } == [.notDetermined, .notDetermined])
        #expect(dismissed[0]?.reason.contains("dismissed") == true)
        // auth_admin: the administrator polkit names (root) authenticates.
        let admin = try authorize(
            fixture, ["org.example.test.admin", "authorize"], passwords: passwords, input: "admin\n")
        #expect(admin.map { $0?.kind } == [.authorized, .notDetermined])
    }

    @Test(
        "keep: false does not reuse polkit's kept authorization; cancelling the task cancels the check",
        .enabled(if: PAMTestModules.matrix != nil, "needs libpam-wrapper"))
    func keepAndCancel() async throws {
        let fixture = try await PolkitFixture(actions: Self.actions, rules: Self.rules)
        let passwords = ["nobody:right:polkit-1"]
        let once = try authorize(
            fixture, ["org.example.test.self", "authorize", "no-keep"], passwords: passwords, input: "right\n")
        #expect(once.map { $0?.kind } == [.authorized, .notDetermined])
        #expect(once[1]?.reason.contains("does not reuse") == true)
        let cancelled = try authorize(
            fixture, ["org.example.test.self", "authorize-cancel"], passwords: passwords, input: "right\n")
        #expect(cancelled.count == 2)
        #expect(cancelled[0] == nil, "authorize() throws CancellationError")
        #expect(cancelled[1]?.kind == .notDetermined)
    }

    @Test("action ids and details are checked before anything is sent")
    func configurationIsChecked() {
        #expect(throws: CapabilityConfigurationError.self) { try PolkitAuthorization(action: "Org.Example") }
        #expect(throws: CapabilityConfigurationError.self) { try PolkitAuthorization(action: "") }
        #expect(throws: CapabilityConfigurationError.self) { try PolkitAuthorization(action: "org.example\u{0}.x") }
        #expect(throws: CapabilityConfigurationError.self) {
            try PolkitAuthorization(action: "org.example.x", details: ["polkit.message": "Enter your password"])
        }
        #expect(throws: CapabilityConfigurationError.self) {
            try PolkitAuthorization(action: "org.example.x", details: ["key": "a\u{0}b"])
        }
        #expect(
            (try? PolkitAuthorization(action: "org.example.backup-2.restore"))?.name
                == "polkit:org.example.backup-2.restore")
    }

    @Test("without libsystemd the capability is unavailable with the reason")
    func missingLibrary() async throws {
        let capability = try PolkitAuthorization(action: "org.example.x", library: "libsystemd-missing.so.0")
        let status = await capability.resolveStatus()
        #expect(status.kind == .unavailable)
        #expect(status.cause == .backendMissing)
        #expect(status.reason.contains("libsystemd-missing.so.0"))
    }
}
