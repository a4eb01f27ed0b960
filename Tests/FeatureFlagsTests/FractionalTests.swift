import FeatureFlags
import Testing

/// flagd's `fractional`: the same buckets as flagd for the same input, stable across runs.
/// The expected variants are flagd's published test vectors.
@Suite("Fractional bucketing")
struct FractionalTests {
    private func color(_ flagKey: String, _ targeting: String, _ context: FlagEvaluationContext) throws
        -> FlagEvaluationDetails<String>
    {
        try store(colorFlags(key: flagKey, targeting: targeting)).evaluation(
            flagKey, default: "none", context: context)
    }

    static let byEmail =
        #"{"fractional": [{"cat": [{"var": "$flagd.flagKey"}, {"var": "email"}]}, ["red", 25], ["blue", 25], ["green", 25], ["yellow", 25]]}"#
    static let byEmailRelative =
        #"{"fractional": [{"cat": [{"var": "$flagd.flagKey"}, {"var": "email"}]}, ["red", 5], ["blue", 5], ["green", 5], ["yellow", 5]]}"#
    static let byEmailEqual =
        #"{"fractional": [{"cat": [{"var": "$flagd.flagKey"}, {"var": "email"}]}, ["red"], ["blue"], ["green"], ["yellow"]]}"#

    @Test(
        "the same variant as flagd for the same key",
        arguments: [
            ("rachel@faas.com", "headerColor", "blue"),
            ("monica@faas.com", "headerColor", "yellow"),
            ("joey@faas.com", "headerColor", "red"),
            ("ross@faas.com", "headerColor", "blue"),
            ("ross@faas.com", "footerColor", "yellow"),
        ])
    func flagdVectors(email: String, flagKey: String, expected: String) throws {
        for rule in [Self.byEmail, Self.byEmailRelative, Self.byEmailEqual] {
            let details = try color(flagKey, rule, .init(attributes: ["email": .string(email)]))
            #expect(details.variant == expected)
            #expect(details.reason == .targetingMatch)
        }
    }

    @Test(
        "without a bucketing value, flag key and targeting key are hashed",
        arguments: [("headerColor", "blue"), ("footerColor", "green")])
    func targetingKeyVectors(flagKey: String, expected: String) throws {
        let rule = #"{"fractional": [["red", 25], ["blue", 25], ["green", 25], ["yellow", 25]]}"#
        #expect(try color(flagKey, rule, .init(targetingKey: "myKey")).variant == expected)
    }

    @Test(
        "a missing bucketing value gives way to flag key and targeting key, as flagd's Go evaluator; with neither, null"
    )
    func missingBucketingValue() throws {
        let rule = #"{"fractional": [{"var": "email"}, ["red", 25], ["blue", 25], ["green", 25], ["yellow", 25]]}"#
        let shortForm = #"{"fractional": [["red", 25], ["blue", 25], ["green", 25], ["yellow", 25]]}"#
        for key in ["myKey", "other", "x"] {
            let missing = try color("headerColor", rule, .init(targetingKey: key))
            #expect(missing.reason == .targetingMatch)
            #expect(missing.variant == (try color("headerColor", shortForm, .init(targetingKey: key))).variant)
        }
        for context in [FlagEvaluationContext(), FlagEvaluationContext(targetingKey: "")] {
            let details = try color("headerColor", rule, context)
            #expect(details.variant == "red", "the default variant")
            #expect(details.reason == .default)
        }
    }

    @Test("a bucketing value that is a list is null, never a bucket the context adds to the rule (flagd would take it)")
    func listBucketingValue() throws {
        let rule = #"{"fractional": [{"var": "email"}, ["red", 50], ["blue", 50]]}"#
        for key in ["myKey", "other", "x", "y"] {
            let context = FlagEvaluationContext(targetingKey: key, attributes: ["email": ["green", 1_000_000]])
            let details = try color("headerColor", rule, context)
            #expect(details.variant == "red", "the default variant, not the injected green")
            #expect(details.reason == .default)
        }
    }

    @Test("an empty bucketing value is hashed like any other string, as flagd's Go evaluator does")
    func emptyBucketingValue() throws {
        // murmur3("") = 0, so the point is 0: the first bucket with weight.
        let rule = #"{"fractional": [{"var": "email"}, ["blue", 0], ["green", 50], ["yellow", 50]]}"#
        let details = try color("headerColor", rule, .init(targetingKey: "myKey", attributes: ["email": ""]))
        #expect(details.variant == "green")
        #expect(details.reason == .targetingMatch)
    }

    @Test("a weight with a fraction, or of another type, makes the operator null; a null weight counts as 1")
    func weights() throws {
        let context = FlagEvaluationContext(targetingKey: "myKey")
        for bad in [#"["red", 50.5]"#, #"["red", "50"]"#, #"["red", true]"#, #"[]"#, #"[["red"], 1]"#] {
            let details = try color("headerColor", #"{"fractional": [\#(bad), ["blue", 50]]}"#, context)
            #expect(details.reason == .default, "\(bad)")
        }
        let nullWeight = try color("headerColor", #"{"fractional": [["blue", null], ["green", 0]]}"#, context)
        #expect(nullWeight.variant == "blue")
        #expect(nullWeight.reason == .targetingMatch)
        // Under `!`, a null operator is falsy: the rule goes on.
        let negated = try color(
            "headerColor", #"{"if": [{"!": [{"fractional": [["red", 50.5]]}]}, "green", "blue"]}"#, context)
        #expect(negated.variant == "green")
    }

    @Test("a bucket of weight 100 takes everyone, weight 0 nobody")
    func extremes() throws {
        let rule = #"{"fractional": [["green", 100], ["red", 0]]}"#
        for index in 0..<50 {
            #expect(try color("f", rule, .init(targetingKey: "user-\(index)")).variant == "green")
        }
    }

    @Test("assignments are stable and spread in proportion")
    func distribution() throws {
        let flags = try store(colorFlags(key: "f", targeting: #"{"fractional": [["red", 10], ["blue", 90]]}"#))
        var counts: [String: Int] = [:]
        for index in 0..<2000 {
            let first = flags.evaluation("f", default: "", context: .init(targetingKey: "host-\(index)")).variant
            let second = flags.evaluation("f", default: "", context: .init(targetingKey: "host-\(index)")).variant
            #expect(first == second)
            counts[first ?? "", default: 0] += 1
        }
        // 10 % of 2,000 is 200; murmur3 over these keys lands within a few dozen of it.
        #expect((150...250).contains(counts["red", default: 0]))
        #expect(counts["red", default: 0] + counts["blue", default: 0] == 2000)
    }
}
