import CapabilityPolicy
import FeatureFlags
import Foundation
import LinuxBackends
import LinuxPolicy
import RouteGates
import TestSupport
import Testing

/// A route gate reuses a decision for the same user and context only while nothing it followed
/// from has changed (Semantics rule 61).
@Suite("RouteGate: decisions reused, never past a change", .timeLimit(.minutes(2)))
struct ReusedDecisionsTests {
    @Test("only gates decided from the user's groups and the flags may be reused")
    func eligibility() throws {
        let fixture = try RouteGateFixture(
            capabilities: "  data: { kind: file, path: /tmp, access: [read] }\n",
            gates: "  with-file: { require: { all-of: [root-group, data] } }\n")
        #expect(fixture.policy.decidesFromIdentityAndFlags(gate: "members"))
        #expect(fixture.policy.decidesFromIdentityAndFlags(gate: "per-user"))
        #expect(!fixture.policy.decidesFromIdentityAndFlags(gate: "login"))
        #expect(!fixture.policy.decidesFromIdentityAndFlags(gate: "with-file"))
        #expect(!fixture.policy.decidesFromIdentityAndFlags(gate: "no-such-gate"))
    }

    @Test("a gate reading a flag that reads the clock is decided every time, while the flag does")
    func clockFlags() throws {
        let fixture = try RouteGateFixture(
            capabilities: "  timed-capability: { kind: flag, flag: timed }\n",
            gates: "  timed: { require: { flag: timed } }\n  timed-through: { require: timed-capability }\n",
            flags: #", "timed": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off","#
                + #""targeting": {"if": [{">": [{"var": "$flagd.timestamp"}, 1900000000]}, "on", "off"]}}"#)
        #expect(!fixture.policy.decidesFromIdentityAndFlags(gate: "timed"))
        #expect(!fixture.policy.decidesFromIdentityAndFlags(gate: "timed-through"))
        #expect(fixture.policy.decidesFromIdentityAndFlags(gate: "members"))
        try fixture.directory.write(
            #"{"flags": {"timed": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off"}}}"#,
            to: "flags.json")
        fixture.policy.flags.reloadAll()
        #expect(fixture.policy.decidesFromIdentityAndFlags(gate: "timed"))
        #expect(fixture.policy.decidesFromIdentityAndFlags(gate: "timed-through"))
    }

    @Test("a flag file read again decides the next request anew")
    func flagChange() async throws {
        let fixture = try RouteGateFixture()
        let gate = RouteGate("per-user", policy: fixture.policy, userLifetime: .seconds(3600))
        let request = RouteRequest(user: "nobody", method: "GET", path: "/")
        #expect(await gate.decide(request).response == .forbidden)
        #expect(await gate.decide(request).response == .forbidden)
        try fixture.directory.write(
            #"{"flags": {"broken": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off"},"#
                + #""per-user": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "on"}}}"#,
            to: "flags.json")
        // Read now, whether or not the file watcher has seen the edit yet.
        fixture.policy.flags.reloadAll()
        #expect(await gate.decide(request).response == .pass)
    }

    @Test("another context (a header the gate reads) is decided on its own")
    func otherContext() async throws {
        let fixture = try RouteGateFixture()
        let gate = RouteGate("per-user", policy: fixture.policy, headerAttributes: ["X-Tier": "tier"])
        #expect(await gate.decide(RouteRequest(user: "nobody", method: "GET", path: "/")).response == .forbidden)
        let beta = RouteRequest(user: "nobody", method: "GET", path: "/", headers: ["X-Tier": "beta"])
        #expect(await gate.decide(beta).response == .pass)
        #expect(await gate.decide(RouteRequest(user: "nobody", method: "GET", path: "/")).response == .forbidden)
        #expect(await gate.decide(RouteRequest(user: "root", method: "GET", path: "/")).response == .pass)
    }

    @Test("each reused decision is recorded as a decision of its own", .enabled(if: SyslogReceiver.isAvailable))
    func recordedEachTime() async throws {
        let fixture = try RouteGateFixture()
        let receiver = try SyslogReceiver()
        let trail = AuditTrail(destination: .syslog(path: receiver.socketPath), identifier: "route-gate-tests")
        let gate = RouteGate("members", policy: fixture.policy, audit: trail)
        var ids: Set<String> = []
        for path in ["/a", "/b", "/c"] {
            let decision = await gate.decide(RouteRequest(user: "nobody", method: "GET", path: path))
            let line = try #require(await receiver.nextRecord())
            let record = try RecordedDecision(reading: line)
            #expect(record.decisionID == decision.decisionID && record.outcome == .fails)
            #expect(line.contains("CAPCTL_REQUEST_PATH=\"\(path)\""), "\(line)")
            ids.insert(record.decisionID)
        }
        #expect(ids.count == 3)
    }
}
