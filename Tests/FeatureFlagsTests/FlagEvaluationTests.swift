import FeatureFlags
import Glibc
import Testing

/// Evaluation as flagd defines it: each reason, each error code, disabled and unknown flags,
/// a missing default variant, metadata.
@Suite("Flag evaluation")
struct FlagEvaluationTests {
    static let flags = """
        {
          "$schema": "https://flagd.dev/schema/v0/flags.json",
          "flags": {
            "static-on": { "state": "ENABLED", "variants": { "on": true, "off": false }, "defaultVariant": "on",
                           "metadata": { "version": 17, "owner": "storage" } },
            "empty-targeting": { "state": "ENABLED", "variants": { "on": true, "off": false }, "defaultVariant": "off", "targeting": {} },
            "disabled": { "state": "DISABLED", "variants": { "on": true, "off": false }, "defaultVariant": "on" },
            "code-default": { "state": "ENABLED", "variants": { "on": true, "off": false }, "defaultVariant": null },
            "no-default": { "state": "ENABLED", "variants": { "on": true, "off": false },
                            "targeting": { "if": [{ "==": [{ "var": "tier" }, "gold"] }, "on", null] } },
            "by-email": { "state": "ENABLED", "variants": { "on": true, "off": false }, "defaultVariant": "off",
                          "targeting": { "if": [{ "ends_with": [{ "var": "email" }, "@example.com"] }, "on", null] } },
            "shorthand": { "state": "ENABLED", "variants": { "true": true, "false": false }, "defaultVariant": "false",
                           "targeting": { "starts_with": [{ "var": "email" }, "admin@"] } },
            "bad-variant": { "state": "ENABLED", "variants": { "on": true, "off": false }, "defaultVariant": "off",
                             "targeting": { "cat": ["o", "n", "n"] } },
            "rollout": { "state": "ENABLED", "variants": { "a": "A", "b": "B" }, "defaultVariant": "a",
                         "targeting": { "fractional": [["a", 50], ["b", 50]] } },
            "limit": { "state": "ENABLED", "variants": { "low": 10, "high": 1000, "half": 0.5 }, "defaultVariant": "low" },
            "half": { "state": "ENABLED", "variants": { "half": 0.5, "one": 1 }, "defaultVariant": "half" },
            "config": { "state": "ENABLED", "variants": { "small": { "threads": 2 }, "large": { "threads": 16 } }, "defaultVariant": "large" },
            "over-limit": { "state": "ENABLED", "variants": { "on": true, "off": false }, "defaultVariant": "off",
                            "targeting": { "if": [{ ">": [{ "var": "load" }, 0.9] }, "on", "off"] } }
          },
          "metadata": { "flagSetId": "ops", "owner": "platform" }
        }
        """

    @Test(
        "an incomplete attribute makes rules reading it INVALID_CONTEXT; others, and a caller's value for it, are fine")
    func incompleteAttributes() throws {
        let flags = try store(
            """
            {"flags": {
              "deny-ops": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "on",
                           "targeting": {"if": [{"in": ["ops", {"var": "groups"}]}, "off", "on"]}},
              "by-tier": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off",
                          "targeting": {"if": [{"==": [{"var": "tier"}, "gold"]}, "on", "off"]}},
              "whole": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off",
                        "targeting": {"if": [{"var": ""}, "on", "off"]}},
              "missing": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off",
                          "targeting": {"if": [{"missing": ["groups"]}, "off", "on"]}}
            }}
            """,
            context: FlagEvaluationContext(
                attributes: ["groups": .list([.string("staff")]), "tier": .string("gold")],
                incompleteAttributes: ["groups": "looking up gid 4242 failed: Permission denied"]))
        for key in ["deny-ops", "whole", "missing"] {
            let details = flags.evaluation(key, default: true)
            #expect(details.reason == .error, "\(key)")
            #expect(details.errorCode == .invalidContext, "\(key)")
            #expect(details.errorMessage?.contains("reads context attribute \"groups\", which is incomplete") == true)
        }
        #expect(flags.evaluation("by-tier", default: false).value == true)
        let given = FlagEvaluationContext(attributes: ["groups": .list([.string("ops")])])
        #expect(flags.evaluation("deny-ops", default: true, context: given).value == false)
        let merged = given.merged(over: FlagEvaluationContext(incompleteAttributes: ["groups": "x", "user": "y"]))
        #expect(merged.incompleteAttributes == ["user": "y"])
    }

    @Test("STATIC: no targeting gives the default variant")
    func staticReason() throws {
        let details = try store(Self.flags).evaluation("static-on", default: false)
        #expect(details.value == true)
        #expect(details.variant == "on")
        #expect(details.reason == .static)
        #expect(details.errorCode == nil)
    }

    @Test("an empty targeting object counts as none")
    func emptyTargeting() throws {
        let details = try store(Self.flags).evaluation("empty-targeting", default: true)
        #expect(details.value == false)
        #expect(details.reason == .static)
    }

    @Test("metadata: the flag's own overlays the flag set's")
    func metadata() throws {
        let details = try store(Self.flags).evaluation("static-on", default: false)
        #expect(details.flagMetadata == ["flagSetId": "ops", "owner": "storage", "version": 17])
    }

    @Test("TARGETING_MATCH and DEFAULT from targeting")
    func targetingReasons() throws {
        let flags = try store(Self.flags)
        let match = flags.evaluation(
            "by-email", default: false, context: .init(attributes: ["email": "ann@example.com"]))
        #expect(match.value == true)
        #expect(match.variant == "on")
        #expect(match.reason == .targetingMatch)
        let fallThrough = flags.evaluation(
            "by-email", default: true, context: .init(attributes: ["email": "ann@elsewhere.org"]))
        #expect(fallThrough.value == false)
        #expect(fallThrough.variant == "off")
        #expect(fallThrough.reason == .default)
    }

    @Test("targeting returning true or false picks the variants named so")
    func booleanShorthand() throws {
        let flags = try store(Self.flags)
        #expect(
            flags.evaluation("shorthand", default: false, context: .init(attributes: ["email": "admin@x.org"]))
                .variant == "true")
        #expect(
            flags.evaluation("shorthand", default: true, context: .init(attributes: ["email": "bob@x.org"])).variant
                == "false")
    }

    @Test("a null default variant defers to the code default, reason DEFAULT, no variant")
    func codeDefault() throws {
        let flags = try store(Self.flags)
        for (key, context) in [
            ("code-default", FlagEvaluationContext()),
            ("no-default", FlagEvaluationContext(attributes: ["tier": "iron"])),
        ] {
            let details = flags.evaluation(key, default: true, context: context)
            #expect(details.value == true)
            #expect(details.variant == nil)
            #expect(details.reason == .default)
            #expect(details.errorCode == nil)
        }
        let matched = flags.evaluation("no-default", default: false, context: .init(attributes: ["tier": "gold"]))
        #expect(matched.value == true)
        #expect(matched.reason == .targetingMatch)
    }

    @Test("DISABLED: the caller's default, no error, distinguishable from an unknown flag")
    func disabledVersusUnknown() throws {
        let flags = try store(Self.flags)
        let disabled = flags.evaluation("disabled", default: false)
        #expect(disabled.value == false)
        #expect(disabled.reason == .disabled)
        #expect(disabled.errorCode == nil)
        #expect(disabled.variant == nil)
        let unknown = flags.evaluation("no-such-flag", default: false)
        #expect(unknown.value == false)
        #expect(unknown.reason == .error)
        #expect(unknown.errorCode == .flagNotFound)
    }

    @Test("TYPE_MISMATCH: asking a Boolean flag for a string returns the default")
    func typeMismatch() throws {
        let flags = try store(Self.flags)
        let details = flags.evaluation("static-on", default: "fallback")
        #expect(details.value == "fallback")
        #expect(details.reason == .error)
        #expect(details.errorCode == .typeMismatch)
        #expect(details.errorMessage?.contains("boolean") == true)
        let fraction = flags.evaluation("half", default: 3)
        #expect(fraction.value == 3)
        #expect(fraction.errorCode == .typeMismatch)
    }

    @Test("typed values: integer, double, object")
    func typedValues() throws {
        let flags = try store(Self.flags)
        #expect(flags.value("limit", default: 0) == 10)
        #expect(flags.value("half", default: 0) == 0.5)
        #expect(flags.evaluation("config", default: [:] as FlagValue).value == ["threads": 16])
        #expect(flags.valueDetails("limit", default: .null).value == 10)
    }

    @Test("GENERAL: targeting returning something that is not a variant")
    func invalidVariant() throws {
        let details = try store(Self.flags).evaluation("bad-variant", default: true)
        #expect(details.value == true)
        #expect(details.reason == .error)
        #expect(details.errorCode == .general)
        #expect(details.errorMessage?.contains("\"onn\"") == true)
    }

    @Test(
        "fractional's short form without a targeting key (or with an empty one) is null, as flagd's Go evaluator: the default"
    )
    func noTargetingKey() throws {
        let flags = try store(Self.flags)
        for context in [FlagEvaluationContext(), FlagEvaluationContext(targetingKey: "")] {
            let details = flags.evaluation("rollout", default: "none", context: context)
            #expect(details.reason == .default)
            #expect(details.value == "A")
        }
        let keyed = flags.evaluation("rollout", default: "none", context: .init(targetingKey: "host-17"))
        #expect(keyed.reason == .targetingMatch)
        #expect(["A", "B"].contains(keyed.value))
    }

    @Test("INVALID_CONTEXT: a number JSON cannot carry")
    func invalidContext() throws {
        let details = try store(Self.flags).evaluation(
            "over-limit", default: false, context: .init(attributes: ["load": .number(.nan)]))
        #expect(details.errorCode == .invalidContext)
        #expect(details.errorMessage?.contains("load") == true)
    }

    @Test("comparisons read numbers from the context")
    func numberComparison() throws {
        let flags = try store(Self.flags)
        #expect(flags.value("over-limit", default: false, context: .init(attributes: ["load": 0.95])) == true)
        #expect(flags.value("over-limit", default: true, context: .init(attributes: ["load": 0.5])) == false)
    }

    @Test("the store's context is the base and the caller's attributes win")
    func contextMerging() throws {
        let flags = try store(Self.flags, context: FlagEvaluationContext(attributes: ["email": "ops@example.com"]))
        #expect(flags.value("by-email", default: false) == true)
        #expect(flags.value("by-email", default: false, context: .init(attributes: ["email": "x@y.org"])) == false)
    }

    @Test("$flagd.flagKey and $flagd.timestamp are in the context")
    func flagdProperties() throws {
        let now = Int(time(nil))
        let json = """
            { "flags": {
                "named": { "state": "ENABLED", "variants": { "yes": true, "no": false }, "defaultVariant": "no",
                           "targeting": { "if": [{ "==": [{ "var": "$flagd.flagKey" }, "named"] }, "yes", "no"] } },
                "timed": { "state": "ENABLED", "variants": { "yes": true, "no": false }, "defaultVariant": "no",
                           "targeting": { "if": [{ ">=": [{ "var": "$flagd.timestamp" }, \(now)] }, "yes", "no"] } },
                "expired": { "state": "ENABLED", "variants": { "yes": true, "no": false }, "defaultVariant": "no",
                           "targeting": { "if": [{ "<": [{ "var": "$flagd.timestamp" }, \(now - 3600)] }, "yes", "no"] } }
            } }
            """
        let flags = try store(json)
        #expect(flags.value("named", default: false) == true)
        #expect(flags.value("timed", default: false) == true)
        #expect(flags.value("expired", default: true) == false)
    }
}
