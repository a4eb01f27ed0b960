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
        "a missing or empty bucketing value makes the rule null: the default variant, reason DEFAULT",
        arguments: [nil, ""])
    func missingBucketingValue(email: String?) throws {
        let rule = #"{"fractional": [{"var": "email"}, ["red", 25], ["blue", 25], ["green", 25], ["yellow", 25]]}"#
        let context = FlagEvaluationContext(
            targetingKey: "myKey", attributes: email.map { ["email": .string($0)] } ?? [:])
        let details = try color("headerColor", rule, context)
        #expect(details.variant == "red")
        #expect(details.reason == .default)
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
