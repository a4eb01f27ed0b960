import FeatureFlags
import TestSupport
import Testing

/// The scenarios of flagd's evaluator test kit (open-feature/flagd-testbed, `evaluator/gherkin`
/// and `gherkin/targeting.feature`) against ``conformanceFlags``, loaded from a file as a
/// service would load it: the same value, reason and error code as flagd for every row
/// (Semantics rules 38 and 39).
@Suite("flagd conformance")
struct FlagdConformanceTests {
    /// The type a scenario asks for, with the caller's default.
    enum Request: Sendable, CustomStringConvertible {
        case boolean(Bool)
        case string(String)
        case integer(Int)
        case float(Double)
        case object(FlagValue)

        var description: String {
            switch self {
            case .boolean(let value): "Boolean(default \(value))"
            case .string(let value): "String(default \(value))"
            case .integer(let value): "Integer(default \(value))"
            case .float(let value): "Float(default \(value))"
            case .object(let value): "Object(default \(value))"
            }
        }
    }

    struct Row: Sendable, CustomTestStringConvertible {
        var key: String
        var request: Request
        var context = FlagEvaluationContext()
        var value: FlagValue
        var reason: FlagEvaluationReason?
        var error: FlagErrorCode?

        var testDescription: String {
            "\(key) as \(request) with \(context.attributes), key \(context.targetingKey ?? "none")"
        }
    }

    static let store: FlagStore = {
        let directory = try! TemporaryDirectory()
        let path = try! directory.write(conformanceFlags, to: "testkit.flags.json")
        return FlagStore(files: [path], watchesFiles: false, context: FlagEvaluationContext())
    }()

    private static func evaluate(_ row: Row) -> (value: FlagValue, reason: FlagEvaluationReason, error: FlagErrorCode?)
    {
        let context = row.context
        switch row.request {
        case .boolean(let fallback):
            let details = store.evaluation(row.key, default: fallback, context: context)
            return (.bool(details.value), details.reason, details.errorCode)
        case .string(let fallback):
            let details = store.evaluation(row.key, default: fallback, context: context)
            return (.string(details.value), details.reason, details.errorCode)
        case .integer(let fallback):
            let details = store.evaluation(row.key, default: fallback, context: context)
            return (.number(Double(details.value)), details.reason, details.errorCode)
        case .float(let fallback):
            let details = store.evaluation(row.key, default: fallback, context: context)
            return (.number(details.value), details.reason, details.errorCode)
        case .object(let fallback):
            let details = store.evaluation(row.key, default: fallback, context: context)
            return (details.value, details.reason, details.errorCode)
        }
    }

    /// The value-only call, which answers static flags without building details: it must agree.
    private static func valueOnly(_ row: Row) -> FlagValue {
        let context = row.context
        switch row.request {
        case .boolean(let fallback): return .bool(store.value(row.key, default: fallback, context: context))
        case .string(let fallback): return .string(store.value(row.key, default: fallback, context: context))
        case .integer(let fallback):
            return .number(Double(store.value(row.key, default: fallback, context: context)))
        case .float(let fallback): return .number(store.value(row.key, default: fallback, context: context))
        case .object(let fallback): return store.evaluation(row.key, default: fallback, context: context).value
        }
    }

    private static func check(_ row: Row, sourceLocation: SourceLocation = #_sourceLocation) {
        let result = evaluate(row)
        #expect(result.value == row.value, sourceLocation: sourceLocation)
        #expect(valueOnly(row) == row.value, "the value-only call disagrees", sourceLocation: sourceLocation)
        if let reason = row.reason { #expect(result.reason == reason, sourceLocation: sourceLocation) }
        #expect(result.error == row.error, sourceLocation: sourceLocation)
        if row.error != nil { #expect(result.reason == .error, sourceLocation: sourceLocation) }
    }

    private static func attributes(_ attributes: [String: FlagValue], key: String? = nil) -> FlagEvaluationContext {
        FlagEvaluationContext(targetingKey: key, attributes: attributes)
    }

    private static func keyed(_ key: String) -> FlagEvaluationContext { FlagEvaluationContext(targetingKey: key) }

    // MARK: evaluation.feature, precision.feature, disabled

    @Test(
        "static values of every type, without loss of precision",
        arguments: [
            Row(key: "boolean-flag", request: .boolean(false), value: true, reason: .static),
            Row(key: "string-flag", request: .string("bye"), value: "hi", reason: .static),
            Row(key: "integer-flag", request: .integer(1), value: 10, reason: .static),
            Row(key: "float-flag", request: .float(0.1), value: 0.5, reason: .static),
            Row(
                key: "object-flag", request: .object([:]),
                value: ["showImages": true, "title": "Check out these pics!", "imagesPerPage": 100], reason: .static),
            Row(key: "large-integer-flag", request: .integer(1), value: 2_147_483_647, reason: .static),
            Row(key: "huge-integer-flag", request: .integer(1), value: 9_007_199_254_740_991, reason: .static),
            Row(key: "integral-float-flag", request: .float(0.1), value: 10.0, reason: .static),
            Row(key: "boolean-zero-flag", request: .boolean(true), value: false, reason: .static),
            Row(key: "string-zero-flag", request: .string("x"), value: "", reason: .static),
            Row(key: "integer-zero-flag", request: .integer(5), value: 0, reason: .static),
            Row(key: "disabled-flag", request: .boolean(false), value: false, reason: .disabled),
        ])
    func basic(row: Row) { Self.check(row) }

    // MARK: errors.feature

    @Test(
        "FLAG_NOT_FOUND and TYPE_MISMATCH, with the caller's default",
        arguments: [
            Row(key: "missing-flag", request: .string("uh-oh"), value: "uh-oh", error: .flagNotFound),
            Row(key: "wrong-flag", request: .integer(13), value: 13, error: .typeMismatch),
            Row(key: "boolean-flag", request: .string("fallback"), value: "fallback", error: .typeMismatch),
            Row(key: "boolean-flag", request: .integer(1), value: 1, error: .typeMismatch),
            Row(key: "boolean-flag", request: .float(0.1), value: 0.1, error: .typeMismatch),
            Row(key: "string-flag", request: .boolean(false), value: false, error: .typeMismatch),
            Row(key: "string-flag", request: .integer(1), value: 1, error: .typeMismatch),
            Row(key: "string-flag", request: .float(0.1), value: 0.1, error: .typeMismatch),
            Row(key: "integer-flag", request: .boolean(false), value: false, error: .typeMismatch),
            Row(key: "integer-flag", request: .string("fallback"), value: "fallback", error: .typeMismatch),
            Row(key: "float-flag", request: .boolean(false), value: false, error: .typeMismatch),
            Row(key: "float-flag", request: .string("fallback"), value: "fallback", error: .typeMismatch),
        ])
    func errors(row: Row) { Self.check(row) }

    // MARK: no-default-variant.feature

    @Test(
        "no default variant: the caller's default, reason DEFAULT, never type-checked",
        arguments: [
            Row(key: "null-default-flag", request: .boolean(true), value: true, reason: .default),
            Row(key: "null-default-flag", request: .boolean(false), value: false, reason: .default),
            Row(key: "undefined-default-flag", request: .integer(100), value: 100, reason: .default),
            Row(key: "null-default-flag", request: .string("s"), value: "s", reason: .default),
            Row(
                key: "no-default-flag-null-targeting-variant", request: .string("Inventor"),
                context: attributes(["email": "wozniak@orange.com"]), value: "Inventor", reason: .default),
            Row(
                key: "no-default-flag-null-targeting-variant", request: .string("CEO"),
                context: attributes(["email": "jobs@orange.com"]), value: "CEO", reason: .targetingMatch),
            Row(
                key: "no-default-flag-undefined-targeting-variant", request: .string("Retired"),
                context: attributes(["email": "wozniak@orange.com"]), value: "Retired", reason: .default),
        ])
    func noDefaultVariant(row: Row) { Self.check(row) }

    // MARK: targeting.feature: targeting key, time, errors and edge cases

    @Test(
        "targeting key, timestamps, and results that are null, not variants, or not strings",
        arguments: [
            Row(
                key: "targeting-key-flag", request: .string("fallback"),
                context: keyed("5c3d8535-f81a-4478-a6d3-afaa4d51199e"),
                value: "hit", reason: .targetingMatch),
            Row(
                key: "targeting-key-flag", request: .string("fallback"),
                context: keyed("f20bd32d-703b-48b6-bc8e-79d53c85134a"),
                value: "miss", reason: .default),
            Row(key: "timestamp-flag", request: .integer(0), context: attributes(["time": 1]), value: -1),
            Row(key: "timestamp-flag", request: .integer(0), context: attributes(["time": 4_133_980_802]), value: 1),
            Row(key: "targeting-null-variant-flag", request: .integer(3), value: 2, reason: .default),
            Row(key: "error-targeting-flag", request: .integer(3), value: 3, error: .parseError),
            Row(key: "missing-variant-targeting-flag", request: .integer(3), value: 3, error: .general),
            Row(key: "non-string-variant-targeting-flag", request: .integer(3), value: 2, reason: .targetingMatch),
            Row(key: "empty-targeting-flag", request: .integer(3), value: 1, reason: .static),
        ])
    func edgeCases(row: Row) { Self.check(row) }

    // MARK: evaluator-refs.feature

    @Test(
        "$ref to shared evaluators, whatever the white space; to a missing one, PARSE_ERROR",
        arguments: [
            Row(
                key: "some-email-targeted-flag", request: .string("fallback"),
                context: attributes(["email": "ballmer@macrosoft.com"]), value: "hi"),
            Row(
                key: "some-other-email-targeted-flag", request: .string("fallback"),
                context: attributes(["email": "ballmer@macrosoft.com"]), value: "yes"),
            Row(
                key: "ref-whitespace-compact-flag", request: .string("fallback"),
                context: attributes(["email": "ballmer@macrosoft.com"]),
                value: "hi", reason: .targetingMatch),
            Row(
                key: "ref-whitespace-space-around-colon-flag", request: .string("fallback"),
                context: attributes(["email": "ballmer@macrosoft.com"]), value: "hi", reason: .targetingMatch),
            Row(
                key: "ref-whitespace-compact-flag", request: .string("fallback"),
                context: attributes(["email": "user@example.com"]),
                value: "bye", reason: .targetingMatch),
            Row(
                key: "ref-to-nonexistent-evaluator-flag", request: .string("fallback"), value: "fallback",
                error: .parseError),
        ])
    func evaluatorReferences(row: Row) { Self.check(row) }

    // MARK: fractional.feature (current, integer bucketing)

    @Test(
        "fractional: flagd's published bucket assignments",
        arguments: [
            Row(
                key: "fractional-flag", request: .string("fallback"), context: attributes(["user": ["name": "jack"]]),
                value: "hearts"),
            Row(
                key: "fractional-flag", request: .string("fallback"), context: attributes(["user": ["name": "queen"]]),
                value: "spades"),
            Row(
                key: "fractional-flag", request: .string("fallback"), context: attributes(["user": ["name": "ten"]]),
                value: "clubs"),
            Row(
                key: "fractional-flag", request: .string("fallback"), context: attributes(["user": ["name": "nine"]]),
                value: "diamonds"),
            Row(
                key: "fractional-flag", request: .string("fallback"), context: attributes(["user": ["name": "3"]]),
                value: "clubs"),
            Row(
                key: "fractional-flag", request: .string("fallback"), context: attributes(["user": ["name": 3]]),
                value: "clubs"),
            Row(
                key: "fractional-flag-shorthand", request: .string("fallback"), context: keyed("jon@company.com"),
                value: "heads"),
            Row(
                key: "fractional-flag-shorthand", request: .string("fallback"), context: keyed("jane@company.com"),
                value: "tails"),
            Row(
                key: "fractional-flag-A-shared-seed", request: .string("fallback"),
                context: attributes(["user": ["name": "seven"]]), value: "hearts"),
            Row(
                key: "fractional-flag-A-shared-seed", request: .string("fallback"),
                context: attributes(["user": ["name": "eight"]]), value: "diamonds"),
            Row(
                key: "fractional-flag-A-shared-seed", request: .string("fallback"),
                context: attributes(["user": ["name": "nine"]]), value: "clubs"),
            Row(
                key: "fractional-flag-A-shared-seed", request: .string("fallback"),
                context: attributes(["user": ["name": "two"]]), value: "spades"),
            Row(
                key: "fractional-flag-B-shared-seed", request: .string("fallback"),
                context: attributes(["user": ["name": "seven"]]), value: "ace-of-hearts"),
            Row(
                key: "fractional-flag-B-shared-seed", request: .string("fallback"),
                context: attributes(["user": ["name": "two"]]), value: "ace-of-spades"),
            Row(
                key: "fractional-hash-edge-flag", request: .string("fallback"), context: keyed("ejOoVL"), value: "lower"
            ),
            Row(
                key: "fractional-hash-edge-flag", request: .string("fallback"), context: keyed("bY9fO-"), value: "lower"
            ),
            Row(
                key: "fractional-hash-edge-flag", request: .string("fallback"), context: keyed("SI7p-"), value: "lower"),
            Row(
                key: "fractional-hash-edge-flag", request: .string("fallback"), context: keyed("6LvT0"), value: "upper"),
            Row(
                key: "fractional-hash-edge-flag", request: .string("fallback"), context: keyed("ceQdGm"), value: "upper"
            ),
            Row(
                key: "fractional-single-entry-flag", request: .string("fallback"),
                context: keyed("some-targeting-key"), value: "single", reason: .targetingMatch),
        ])
    func fractional(row: Row) { Self.check(row) }

    @Test(
        "fractional: computed variant names and weights, and fractional as a condition",
        arguments: [
            Row(
                key: "fractional-nested-if-flag", request: .string("fallback"),
                context: attributes(["tier": "premium"], key: "jon@company.com"), value: "premium"),
            Row(
                key: "fractional-nested-if-flag", request: .string("fallback"),
                context: attributes(["tier": "basic"], key: "jon@company.com"), value: "standard"),
            Row(
                key: "fractional-nested-if-flag", request: .string("fallback"),
                context: attributes(["tier": "premium"], key: "user1"), value: "standard"),
            Row(
                key: "fractional-nested-var-flag", request: .string("fallback"),
                context: attributes(["color": "red"], key: "jon@company.com"), value: "red"),
            Row(
                key: "fractional-nested-var-flag", request: .string("fallback"),
                context: attributes(["color": "green"], key: "jon@company.com"), value: "green"),
            Row(
                key: "fractional-nested-var-flag", request: .string("fallback"),
                context: attributes(["color": "red"], key: "user1"), value: "blue"),
            Row(
                key: "fractional-nested-var-flag", request: .string("fallback"),
                context: attributes(["color": "yellow"], key: "jon@company.com"),
                value: "fallback", error: .general),
            Row(
                key: "fractional-nested-var-flag", request: .string("fallback"),
                context: attributes(["color": ""], key: "jon@company.com"),
                value: "fallback", error: .general),
            Row(
                key: "fractional-nested-weight-flag", request: .string("fallback"),
                context: attributes(["tier": "premium"], key: "jon@company.com"), value: "red"),
            Row(
                key: "fractional-nested-weight-flag", request: .string("fallback"),
                context: attributes(["tier": "basic"], key: "jon@company.com"), value: "blue"),
            Row(
                key: "fractional-nested-weight-flag", request: .string("fallback"),
                context: attributes(["tier": "premium"], key: "user1"), value: "red"),
            Row(
                key: "fractional-nested-weight-flag", request: .string("fallback"),
                context: attributes(["tier": "basic"], key: "user1"), value: "blue"),
            Row(
                key: "fractional-as-condition-flag", request: .string("zero"), context: keyed("some-targeting-key"),
                value: "hundreds"),
            Row(
                key: "fractional-as-condition-false-flag", request: .string("zero"),
                context: keyed("some-targeting-key"), value: "ones"),
        ])
    func fractionalNested(row: Row) { Self.check(row) }

    // MARK: semver.feature, string.feature

    @Test(
        "sem_ver: comparisons, ranges, v prefixes, partial versions, build metadata",
        arguments: [
            ("equal-greater-lesser-version-flag", FlagValue.string("2.0.0"), "equal"),
            ("equal-greater-lesser-version-flag", "2.1.0", "greater"),
            ("equal-greater-lesser-version-flag", "1.9.0", "lesser"),
            ("equal-greater-lesser-version-flag", "2.0.0-alpha", "lesser"),
            ("equal-greater-lesser-version-flag", "2.0.0.0", "none"),
            ("major-minor-version-flag", "3.0.1", "minor"), ("major-minor-version-flag", "3.1.0", "major"),
            ("major-minor-version-flag", "4.0.0", "none"),
            ("semver-v-prefix-flag", "1.0.0", "match"), ("semver-v-prefix-flag", "v1.0.0", "match"),
            ("semver-v-prefix-flag", "V1.0.0", "match"),
            ("semver-v-prefix-flag", "2.0.0", "no-match"),
            ("semver-partial-version-flag", "1.5.0", "match"), ("semver-partial-version-flag", "1.0", "match"),
            ("semver-partial-version-flag", "1", "match"), ("semver-partial-version-flag", 1, "match"),
            ("semver-partial-version-flag", "2.0.0", "no-match"),
            ("semver-build-metadata-flag", "1.0.0", "match"), ("semver-build-metadata-flag", "1.0.0+other", "match"),
            ("semver-build-metadata-flag", "2.0.0", "no-match"),
        ])
    func semanticVersions(key: String, version: FlagValue, expected: String) {
        Self.check(
            Row(
                key: key, request: .string("fallback"), context: Self.attributes(["version": version]),
                value: .string(expected)))
    }

    @Test(
        "starts_with and ends_with",
        arguments: [("abcdef", "prefix"), ("uvwxyz", "postfix"), ("abcxyz", "prefix"), ("lmnopq", "none")])
    func substrings(id: String, expected: String) {
        Self.check(
            Row(
                key: "starts-ends-flag", request: .string("fallback"), context: Self.attributes(["id": .string(id)]),
                value: .string(expected)))
    }

    @Test(
        "flagd's operators given what they cannot use are null: a rule of just the operator gives the default variant, reason DEFAULT",
        arguments: [
            Row(
                key: "semver-invalid-version-flag", request: .string("wrong"),
                context: attributes(["version": "not-a-version"]), value: "fallback", reason: .default),
            Row(
                key: "semver-invalid-operator-flag", request: .string("wrong"),
                context: attributes(["version": "1.0.0"]), value: "fallback", reason: .default),
            Row(
                key: "semver-wrong-args-flag", request: .string("wrong"), context: attributes(["version": "1.0.0"]),
                value: "fallback", reason: .default),
            Row(
                key: "starts-with-non-string-flag", request: .string("wrong"), context: attributes(["num": 123]),
                value: "fallback", reason: .default),
            Row(
                key: "ends-with-non-string-flag", request: .string("wrong"), context: attributes(["num": 123]),
                value: "fallback", reason: .default),
            Row(key: "starts-with-wrong-args-flag", request: .string("wrong"), value: "fallback", reason: .default),
            Row(key: "ends-with-wrong-args-flag", request: .string("wrong"), value: "fallback", reason: .default),
            Row(
                key: "starts-ends-flag", request: .string("fallback"), context: attributes(["id": 3]), value: "none",
                reason: .targetingMatch),
            Row(key: "fractional-null-bucket-key-flag", request: .string("wrong"), value: "fallback", reason: .default),
            // Not the test kit's: with a targeting key, a bucketing value that is null (the attribute
            // is missing) gives way to the flag key and the targeting key, as flagd's Go evaluator
            // does (core/pkg/evaluator/fractional.go: "custom property could be nil/missing");
            // murmur3("fractional-null-bucket-key-flagsome-user") * 100 >> 32 = 15, in "one"'s half.
            Row(
                key: "fractional-null-bucket-key-flag", request: .string("wrong"), context: keyed("some-user"),
                value: "one", reason: .targetingMatch),
            Row(
                key: "fractional-zero-weights-flag", request: .string("wrong"), context: keyed("any-user"),
                value: "fallback", reason: .default),
            Row(
                key: "fractional-negative-weight-flag", request: .string("wrong"), context: keyed("any-user"),
                value: "two", reason: .targetingMatch),
        ])
    func operatorErrors(row: Row) { Self.check(row) }

    // MARK: one file, valid and broken flags side by side

    @Test("the file loads whole; validation still names every problem with its line")
    func problemsAreReported() throws {
        #expect(Self.store.loadFailures.isEmpty)
        #expect(Self.store.flags.count == conformanceFlags.components(separatedBy: "\"state\":").count - 1)
        let problems = Self.store.problems
        let lines = conformanceFlags.split(separator: "\n", omittingEmptySubsequences: false)
        func line(of flag: String) -> Int { (lines.firstIndex { $0.contains("\"\(flag)\":") } ?? -1) + 1 }
        let expected: [(flag: String, fragment: String)] = [
            ("ref-to-nonexistent-evaluator-flag", "$ref \"nonexistent_evaluator\" names no entry"),
            ("fractional-zero-weights-flag", "add up to 0"),
            ("fractional-negative-weight-flag", "counts -50 as 0"),
            ("starts-with-wrong-args-flag", "\"starts_with\" takes 2 arguments, found 1"),
            ("ends-with-wrong-args-flag", "\"ends_with\" takes 2 arguments, found 1"),
            ("semver-invalid-operator-flag", "sem_ver operator \"===\" is not one of"),
            ("semver-wrong-args-flag", "\"sem_ver\" takes 3 arguments, found 2"),
            ("error-targeting-flag", "unknown operator \"invalid\""),
        ]
        for (flag, fragment) in expected {
            // Each problem sits in its flag's definition: from the key's line to the next flag's.
            let start = line(of: flag)
            let hit = problems.contains { problem in
                guard let at = problem.location?.line else { return false }
                return problem.message.contains(fragment) && at >= start && at <= start + 4
            }
            #expect(hit, "no problem \"\(fragment)\" for \(flag) in \(problems)")
        }
        #expect(problems.count == expected.count, "\(problems)")
        #expect(Self.store.flags["error-targeting-flag"]?.problem != nil)
        #expect(Self.store.flags["semver-invalid-operator-flag"]?.problem == nil)
    }
}
