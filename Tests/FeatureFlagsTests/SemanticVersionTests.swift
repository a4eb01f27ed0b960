import FeatureFlags
import Testing

/// flagd's `sem_ver` operator.
@Suite("sem_ver")
struct SemanticVersionTests {
    private func holds(_ version: String, _ op: String, _ target: String) throws -> Bool {
        let json = """
            { "flags": { "f": { "state": "ENABLED", "variants": { "yes": true, "no": false }, "defaultVariant": "no",
              "targeting": { "if": [{ "sem_ver": [{ "var": "version" }, "\(op)", "\(target)"] }, "yes", "no"] } } } }
            """
        return try store(json).value("f", default: false, context: .init(attributes: ["version": .string(version)]))
    }

    @Test(
        "comparisons",
        arguments: [
            ("1.1.2", ">=", "1.0.0", true),
            ("1.0.0", "=", "v1.0.0", true),
            ("v1.0.0", "=", "1.0.0", true),
            ("1.0.0", "!=", "1.0.1", true),
            ("1.0.0", "<", "1.0.1", true),
            ("1.10.0", ">", "1.9.0", true),
            ("2.0.0", "<=", "1.9.9", false),
            ("1.0.0-alpha", "<", "1.0.0", true),
            ("1.0.0-alpha", "<", "1.0.0-alpha.1", true),
            ("1.0.0-alpha.1", "<", "1.0.0-alpha.beta", true),
            ("1.0.0-beta.2", "<", "1.0.0-beta.11", true),
            ("1.0.0-rc.1", "<", "1.0.0", true),
            ("1.0.0+build.5", "=", "1.0.0", true),
            ("1.2", "=", "1.2.0", true),
            ("1", "<", "1.0.1", true),
            ("1.5.9", "^", "1.0.0", true),
            ("2.0.0", "^", "1.9.0", false),
            ("1.2.7", "~", "1.2.0", true),
            ("1.3.0", "~", "1.2.0", false),
        ])
    func comparisons(version: String, op: String, target: String, expected: Bool) throws {
        #expect(try holds(version, op, target) == expected)
    }

    @Test(
        "a version that does not parse makes sem_ver null: the default variant alone, the else branch in an if, true under !",
        arguments: ["1.0.0.0", "01.0.0", "1.0.0-", "banana", "", "1.2-beta"])
    func invalidVersions(version: String) throws {
        let json = """
            { "flags": { "f": { "state": "ENABLED", "variants": { "yes": true, "no": false, "fallback": false },
              "defaultVariant": "fallback",
              "targeting": { "if": [{ "sem_ver": [{ "var": "version" }, "!=", "1.0.0"] }, "yes", "no"] } },
              "alone": { "state": "ENABLED", "variants": { "yes": true, "no": false, "fallback": false },
              "defaultVariant": "fallback", "targeting": { "sem_ver": [{ "var": "version" }, "!=", "1.0.0"] } },
              "negated": { "state": "ENABLED", "variants": { "yes": true, "no": false, "fallback": false },
              "defaultVariant": "fallback",
              "targeting": { "if": [{ "!": [{ "sem_ver": [{ "var": "version" }, "!=", "1.0.0"] }] }, "yes", "no"] } } } }
            """
        let flags = try store(json)
        let context = FlagEvaluationContext(attributes: ["version": .string(version)])
        let details = flags.evaluation("f", default: true, context: context)
        // Null, not false: an `if` takes its else branch either way, but `!` tells them apart.
        #expect(details.variant == "no")
        #expect(details.reason == .targetingMatch)
        let alone = flags.evaluation("alone", default: true, context: context)
        #expect(alone.variant == "fallback")
        #expect(alone.reason == .default)
        #expect(flags.evaluation("negated", default: false, context: context).variant == "yes")
    }

    @Test(
        "v and V prefixes, and numbers in the context read as JavaScript prints them",
        arguments: [
            (FlagValue.string("V1.0.0"), "=", "1.0.0"), (.string("v1.0.0"), "=", "V1"), (.number(2), "=", "2.0.0"),
            (.number(1.2), "=", "1.2.0"), (.number(1.25), ">", "1.3.0"),
        ])
    func prefixesAndNumbers(version: FlagValue, op: String, target: String) throws {
        let json = """
            { "flags": { "f": { "state": "ENABLED", "variants": { "yes": true, "no": false }, "defaultVariant": "no",
              "targeting": { "if": [{ "sem_ver": [{ "var": "version" }, "\(op)", "\(target)"] }, "yes", "no"] } } } }
            """
        let details = try store(json).evaluation(
            "f", default: false, context: .init(attributes: ["version": version]))
        #expect(details.variant == "yes", "\(details)")
    }

    @Test("an unknown operator is reported with its position")
    func unknownOperator() {
        let error = definitionError(
            """
            { "flags": { "f": { "state": "ENABLED", "variants": { "yes": true }, "defaultVariant": "yes",
              "targeting": { "sem_ver": [{ "var": "v" }, "=>", "1.0.0"] } } } }
            """)
        #expect(error?.message.contains("sem_ver operator") == true)
        #expect(error?.location?.line == 2)
    }
}
