import CapabilityPolicy
import FeatureFlags
import Foundation
import LinuxBackends
import LinuxPolicy
import RouteGates
import TestSupport
import Testing

/// A policy with a gate per outcome for `root` and `nobody`, and a PAM service of the test's own.
final class RouteGateFixture {
    let directory: TemporaryDirectory
    let pam: PAMServiceDirectory?
    let policy: LoadedPolicy

    init(capabilities extraCapabilities: String = "", gates extraGates: String = "", flags extraFlags: String = "")
        throws
    {
        directory = try TemporaryDirectory(prefix: "route-gates")
        pam = PAMServiceDirectory.isAvailable ? try PAMServiceDirectory(passwords: ["nobody:right:web"]) : nil
        try pam?.matrixService("web")
        try directory.write(
            """
            {"flags": {
              "broken": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off",
                "targeting": {"cat": ["no-", "such-variant"]}},
              "per-user": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off",
                "targeting": {"if": [{"or": [{"==": [{"var": "targetingKey"}, "root"]},
                                             {"==": [{"var": "tier"}, "beta"]}]}, "on", "off"]}}\(extraFlags)
            }}
            """, to: "flags.json")
        let file = try directory.write(
            """
            capabilities:
              root-group: { kind: group, group: root }
              login: { kind: pam, service: web, service-directory: \(pam?.path ?? "/nonexistent"), tries: 3 }
            \(extraCapabilities)flags:
              files: [flags.json]
            gates:
              members: { description: For root's group, require: root-group }
              broken: { require: { flag: broken } }
              per-user: { require: { flag: per-user } }
              login: { require: login }
            \(extraGates)
            """, to: "policy.yaml")
        policy = try LoadedPolicy(PolicyLoader.load(files: [file], environment: .linux))
    }
}

@Suite("RouteGate: a policy gate decided for a request's user", .timeLimit(.minutes(2)))
struct RouteGateTests {
    @Test("each outcome maps to its answer: holds passes, fails 403, undecided 503, a login 401 with a challenge")
    func outcomes() async throws {
        let fixture = try RouteGateFixture()
        func decide(_ gate: String, _ user: String?) async -> RouteDecision {
            await RouteGate(gate, policy: fixture.policy, realm: "tests").decide(
                RouteRequest(user: user, method: "GET", path: "/" + gate))
        }
        #expect(await decide("members", "root").response == .pass)
        let denied = await decide("members", "nobody")
        #expect(denied.response == .forbidden && denied.statusCode == 403 && denied.outcome == .fails)
        #expect(denied.message == "members: fails (For root's group)")
        #expect(denied.reasons.contains("root-group"), "the reasons, for the service's log: \(denied.reasons)")
        #expect(await decide("broken", "root").response == .unavailable)
        let anonymous = await decide("members", nil)
        #expect(anonymous.response == .unauthorized)
        #expect(anonymous.challenge == "Basic realm=\"tests\", charset=\"UTF-8\"")
        if fixture.pam != nil {
            let login = await decide("login", "nobody")
            #expect(login.response == .unauthorized && login.outcome == .needsInteraction)
        }
    }

    @Test("a user the host does not know is 403; a name that is a number is no uid")
    func unknownUsers() async throws {
        let fixture = try RouteGateFixture()
        let gate = RouteGate("members", policy: fixture.policy)
        for name in ["no-such-user-here", "0", "", "root\0"] {
            let decision = await gate.decide(RouteRequest(user: name, method: "GET", path: "/"))
            #expect(decision.response == .forbidden, "\(name.debugDescription): \(decision.reasons)")
        }
    }

    @Test("an anonymous request is decided for the anonymous user when one is set, never for this process")
    func anonymousUser() async throws {
        let fixture = try RouteGateFixture()
        let gate = RouteGate("members", policy: fixture.policy, anonymousUser: "nobody")
        #expect(await gate.decide(RouteRequest(user: nil, method: "GET", path: "/")).response == .forbidden)
        // This process runs as root in CI: were it asked, it would pass.
        let asRoot = RouteGate("members", policy: fixture.policy, anonymousUser: "root")
        #expect(await asRoot.decide(RouteRequest(user: nil, method: "GET", path: "/")).response == .pass)
    }

    @Test("flags are targeted at the request's user, and at the headers the gate names (in any case)")
    func targeting() async throws {
        let fixture = try RouteGateFixture()
        let gate = RouteGate("per-user", policy: fixture.policy, headerAttributes: ["X-Tier": "tier"])
        func decide(_ user: String, _ headers: [String: String]) async -> RouteDecision.Response {
            await gate.decide(RouteRequest(user: user, method: "GET", path: "/", headers: headers)).response
        }
        #expect(await decide("root", [:]) == .pass)
        #expect(await decide("nobody", [:]) == .forbidden)
        #expect(await decide("nobody", ["x-tier": "beta"]) == .pass)
        #expect(await decide("nobody", ["X-TIER": "gamma"]) == .forbidden)
        // A header the gate does not name is not read.
        #expect(await decide("nobody", ["tier": "beta"]) == .forbidden)
        // The service's own attributes win over a header's.
        let given = await gate.decide(
            RouteRequest(
                user: "nobody", method: "GET", path: "/", headers: ["X-Tier": "beta"], attributes: ["tier": "gold"]))
        #expect(given.response == .forbidden)
    }

    @Test(
        "a Basic password answers the gate's login once: right passes, wrong is 401 again, never retried",
        .enabled(if: PAMServiceDirectory.isAvailable, "needs libpam-wrapper"))
    func loginByPassword() async throws {
        let fixture = try RouteGateFixture()
        let gate = RouteGate("login", policy: fixture.policy)
        let right = await gate.decide(
            RouteRequest(user: "nobody", password: PAMSecret("right"), method: "POST", path: "/"))
        #expect(right.response == .pass, "\(right.reasons)")
        let wrong = await gate.decide(
            RouteRequest(user: "nobody", password: PAMSecret("wrong"), method: "POST", path: "/"))
        #expect(wrong.response == .unauthorized && wrong.outcome == .fails, "\(wrong.reasons)")
        #expect(wrong.challenge != nil)
    }

    @Test("no such gate, or no policy loaded, is 503 for everyone")
    func nothingToDecideWith() async throws {
        let fixture = try RouteGateFixture()
        let missing = await RouteGate("no-such-gate", policy: fixture.policy).decide(
            RouteRequest(user: "root", method: "GET", path: "/"))
        #expect(missing.response == .unavailable)
        let directory = try TemporaryDirectory(prefix: "route-gates")
        let file = try directory.write("gates: { members: { require: nothing-declared } }\n", to: "policy.yaml")
        let store = PolicyStore(files: [file], environment: .linux)
        defer { store.shutdown() }
        #expect(store.current == nil)
        let unloaded = await RouteGate("members", policy: store).decide(
            RouteRequest(user: "root", method: "GET", path: "/"))
        #expect(unloaded.response == .unavailable && unloaded.reasons == "no policy has loaded")
    }

    @Test(
        "each decided request is recorded: the user, the method and path, an id the answer carries",
        .enabled(if: SyslogReceiver.isAvailable, "needs rsyslog"))
    func audited() async throws {
        let fixture = try RouteGateFixture()
        let receiver = try SyslogReceiver()
        let trail = AuditTrail(destination: .syslog(path: receiver.socketPath), identifier: "route-gate-tests")
        let gate = RouteGate("members", policy: fixture.policy, audit: trail)
        let decision = await gate.decide(RouteRequest(user: "nobody", method: "DELETE", path: "/things/7"))
        let line = try #require(await receiver.nextRecord())
        let record = try RecordedDecision(reading: line)
        #expect(record.decisionID == decision.decisionID)
        #expect(record.outcome == .fails && record.action == "route" && record.uid == 65534)
        #expect(
            line.contains("CAPCTL_REQUEST_METHOD=\"DELETE\"") && line.contains("CAPCTL_REQUEST_PATH=\"/things/7\""),
            "\(line)")
    }

    @Test(
        "PAMPasswordCheck: the right password, a wrong one, a user PAM does not know, a service that is not there",
        .enabled(if: PAMServiceDirectory.isAvailable, "needs libpam-wrapper"))
    func passwordCheck() async throws {
        let fixture = try RouteGateFixture()
        let check = try PAMPasswordCheck(service: "web", serviceDirectory: fixture.pam!.path)
        #expect(await check.check(user: "nobody", password: PAMSecret("right")) == .valid)
        guard case .invalid = await check.check(user: "nobody", password: PAMSecret("wrong")) else {
            Issue.record("a wrong password was not refused")
            return
        }
        guard case .invalid = await check.check(user: "mallory", password: PAMSecret("right")) else {
            Issue.record("an unknown user was not refused")
            return
        }
        guard case .invalid = await check.check(user: "-nobody", password: PAMSecret("right")) else {
            Issue.record("an option-like name was not refused")
            return
        }
        let absent = try PAMPasswordCheck(service: "absent", serviceDirectory: fixture.pam!.path)
        guard case .unavailable = await absent.check(user: "nobody", password: PAMSecret("right")) else {
            Issue.record("a missing service did not leave the check undecided")
            return
        }
        #expect(throws: (any Error).self) { try PAMPasswordCheck(service: "Not A Service") }
    }
}
