import Capabilities
import FeatureFlags
import ProcedureCore
import TestSupport
import Testing

/// Flags as capabilities and as conditions on procedures.
@Suite("Flag gating", .timeLimit(.minutes(2)))
struct FlagGatingTests {
    static let json = """
        {"flags": {
          "new-export": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "on"},
          "old-export": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off"},
          "paused": {"state": "DISABLED", "variants": {"on": true, "off": false}, "defaultVariant": "on"},
          "tier": {"state": "ENABLED", "variants": {"g": "gold", "s": "silver"}, "defaultVariant": "s",
                   "targeting": {"if": [{"==": [{"var": "customer"}, "acme"]}, "g", null]}},
          "deferred": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": null}
        }}
        """

    private func gate(_ condition: any ProcedureCondition) async -> Procedure {
        let procedure = BlockProcedure(name: "export") {}
        procedure.addCondition(condition)
        await run(procedure)
        return procedure
    }

    @Test("FlagIsOn passes on an on flag and fails on everything else, with the reason")
    func flagIsOn() async throws {
        let flags = try store(Self.json)
        #expect(await gate(FlagIsOn("new-export", in: flags)).error == nil)
        for key in ["old-export", "paused", "missing", "tier", "deferred"] {
            let procedure = await gate(FlagIsOn(key, in: flags))
            #expect(procedure.isCancelled, "\(key)")
            let reason = procedure.conditionExplanation?.failedLeaves.first?.reason ?? ""
            #expect(reason.contains(key), "\(reason)")
        }
    }

    @Test("FlagEquals compares the evaluated value, with the context")
    func flagEquals() async throws {
        let flags = try store(Self.json)
        #expect(
            await gate(FlagEquals("tier", "gold", in: flags, context: .init(attributes: ["customer": "acme"]))).error
                == nil)
        #expect(await gate(FlagEquals("tier", "gold", in: flags)).isCancelled)
        #expect(await gate(FlagEquals("tier", "silver", in: flags)).error == nil)
    }

    @Test("the flag capability's statuses")
    func capabilityStatuses() async throws {
        let flags = try store(Self.json)
        #expect(await FeatureFlag("new-export", in: flags).resolveStatus().kind == .authorized)
        #expect(await FeatureFlag("old-export", in: flags).resolveStatus().kind == .denied)
        #expect(await FeatureFlag("paused", in: flags).resolveStatus() == .denied("flag paused is disabled"))
        #expect(await FeatureFlag("missing", in: flags).resolveStatus().kind == .unavailable)
        #expect(await FeatureFlag("deferred", in: flags).resolveStatus().kind == .denied)
        #expect(
            await FeatureFlag("tier", in: flags, equals: "gold", context: .init(attributes: ["customer": "acme"]))
                .resolveStatus().kind == .authorized)
        #expect(await FeatureFlag("tier", in: flags, equals: "gold").resolveStatus().kind == .denied)
    }

    @Test("AuthorizedFor a flag, composed with Negated: run the old path while the flag is off")
    func composed() async throws {
        let flags = try store(Self.json)
        #expect(await gate(AuthorizedFor(FeatureFlag("new-export", in: flags))).error == nil)
        #expect(await gate(Negated(AuthorizedFor(FeatureFlag("old-export", in: flags)))).error == nil)
        #expect(await gate(Negated(AuthorizedFor(FeatureFlag("new-export", in: flags)))).isCancelled)
    }
}
