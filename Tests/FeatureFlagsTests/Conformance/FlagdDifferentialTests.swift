import ConfigurationFiles
import FeatureFlags
import Foundation
import TestSupport
import Testing

/// This evaluator against flagd's own Python in-process evaluator (PyPI `openfeature-flagd-core`
/// 2.0.0, pinned in Scripts/test's venv): seeded random flags and contexts, reaching the shapes
/// where evaluators part ways (a null result under `!`, `!` of a non-array, three-argument `<=`,
/// `fractional` with an empty bucketing key, a variant of another type, an error's code). Every
/// evaluation agrees in value, variant, reason and error code, or is one of the deliberate
/// differences of Docs/FeatureFlags.md ("Where this evaluator and flagd's Python one differ"),
/// each decided by flagd's Go evaluator or its test kit.
@Suite("flagd differential", .timeLimit(.minutes(2)))
struct FlagdDifferentialTests {
    static var python: String? {
        let path = ProcessInfo.processInfo.environment["FLAGD_CORE_PYTHON"] ?? ""
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }

    /// One evaluation: a flag configuration, the flag asked for, the type and default, the context.
    struct Case {
        var flags: FlagValue
        var type: String
        var defaultValue: FlagValue
        var context: [String: FlagValue]

        var request: FlagValue {
            .structure([
                "flags": flags, "key": "f", "type": .string(type), "default": defaultValue,
                "context": .structure(context),
            ])
        }
    }

    /// What an evaluation came to, as both sides report it.
    struct Outcome: Equatable, CustomStringConvertible {
        var value: String
        var variant: String?
        var reason: String
        var errorCode: String?
        var description: String {
            "value \(value), variant \(variant ?? "none"), reason \(reason), error \(errorCode ?? "none")"
        }
    }

    @Test(
        "seeded random flags and contexts: flagd's Python evaluator and this one agree, but for the documented differences",
        .enabled(if: python != nil, "needs FLAGD_CORE_PYTHON: Scripts/test makes the venv (openfeature-flagd-core)"),
        arguments: [FractionalBucketing.stringHash, .cbor])
    func agreesWithPythonEvaluator(bucketing: FractionalBucketing) throws {
        // FLAGD_DIFF_SEED tries another seed; the test command runs this one.
        let seed = ProcessInfo.processInfo.environment["FLAGD_DIFF_SEED"].flatMap { UInt64($0) } ?? 0x5EED_F1A6
        var generator = FlagdCaseGenerator(seed: seed)
        let cases = (0..<3000).map { _ in generator.nextCase() }
        let request = FlagValue.structure(["cases": .list(cases.map(\.request))])
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures/FlagdDifferential/flagd_core_eval.py").path
        let directory = try TemporaryDirectory()
        let requestFile = try directory.write(request.description, to: "cases.json")
        let run = try runProcess(Self.python!, [script, requestFile] + (bucketing == .cbor ? ["--cbor"] : []))
        try #require(run.status == 0, "\(run.standardError)")
        guard case .list(let answers) = try JSONDocumentReader.read(run.standardOutput, file: "python").value
        else {
            Issue.record("the script did not answer with a list")
            return
        }
        try #require(answers.count == cases.count)
        var differences: [String: Int] = [:]
        var unexplained: [String] = []
        for (index, (testCase, answer)) in zip(cases, answers).enumerated() {
            let theirs = Self.outcome(python: answer)
            let ours = Self.evaluate(testCase, bucketing: bucketing)
            guard ours != theirs else { continue }
            if let known = Self.documentedDifference(testCase, ours: ours, theirs: theirs) {
                differences[known, default: 0] += 1
            } else {
                unexplained.append("case \(index): \(testCase.request)\n  here:   \(ours)\n  python: \(theirs)")
            }
        }
        // FLAGD_DIFF_DUMP=path keeps every unexplained case, for working through them.
        if let dump = ProcessInfo.processInfo.environment["FLAGD_DIFF_DUMP"] {
            try unexplained.joined(separator: "\n").write(toFile: dump, atomically: true, encoding: .utf8)
        }
        let agreed = cases.count - unexplained.count - differences.values.reduce(0, +)
        print(
            "flagd differential (\(bucketing)), seed \(seed): \(cases.count) evaluations, \(agreed) agree; documented: "
                + differences.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
                + "; unexplained: \(unexplained.count)")
        #expect(
            unexplained.isEmpty, "\(unexplained.count) unexplained:\n\(unexplained.prefix(12).joined(separator: "\n"))")
        // The generator must reach the shapes it is for: every documented difference shows up.
        for name in Self.documentedNames { #expect(differences[name, default: 0] > 0, "never reached: \(name)") }
    }

    // MARK: The deliberate differences (Docs/FeatureFlags.md)

    /// Flags flagd's schema refuses (variants of more than one type, a `targeting` that is not an
    /// object: `null`, `false`): refused
    /// here when the file is read, with its position; flagd's Go evaluator warns and loads them, the
    /// Python one loads them.
    static let schemaRefused = "a flag flagd's schema refuses"
    /// `==`, `!=`, `===`, `!==`, `<`, `<=`, `>`, `>=` or `in` between values of two JSON types:
    /// JavaScript's rules here, as flagd's Go evaluator (diegoholiveira/jsonlogic, "reference
    /// javascript implementation"); Python's json-logic uses Python's (`True == 1` even for `===`, no
    /// order between `None` and a string, no conversion of strings to numbers).
    static let mixedComparison = "a comparison of two JSON types"
    /// A Boolean variant asked for as a number: TYPE_MISMATCH here and in flagd's Go evaluator
    /// (`value.(float64)`); Python's type check takes a `bool` for an `int`.
    static let booleanAsNumber = "a Boolean variant asked for as a number"

    static let documentedNames = [schemaRefused, mixedComparison, booleanAsNumber]

    /// The documented difference `ours` and `theirs` are, if any.
    static func documentedDifference(_ testCase: Case, ours: Outcome, theirs: Outcome) -> String? {
        guard case .structure(let root) = testCase.flags, case .structure(let flags) = root["flags"],
            case .structure(let flag) = flags["f"], case .structure(let variants) = flag["variants"]
        else { return nil }
        if ours.errorCode == "PARSE_ERROR", theirs.errorCode != "PARSE_ERROR" {
            let kinds = Set(variants.values.map(Self.kind))
            let targetingIsObject: Bool =
                if let targeting = flag["targeting"], case .structure = targeting { true } else {
                    flag["targeting"] == nil
                }
            if kinds.count > 1 || !targetingIsObject { return schemaRefused }
        }
        if ours.errorCode == "TYPE_MISMATCH", testCase.type == "float" || testCase.type == "integer",
            theirs.value == "1" || theirs.value == "0", variants.values.contains(where: { Self.kind($0) == "boolean" })
        {
            return booleanAsNumber
        }
        if let targeting = flag["targeting"], Self.comparesTwoTypes(targeting, testCase.context) {
            return mixedComparison
        }
        return nil
    }

    private static func kind(_ value: FlagValue) -> String {
        switch value {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string, .date: "string"
        case .list: "array"
        case .structure: "object"
        }
    }

    private static let comparisons: Set = ["==", "!=", "===", "!==", "<", "<=", ">", ">=", "in"]

    /// Whether `rule` compares operands of two JSON types: literals, attributes read from the context
    /// (or their defaults), and comparisons (a Boolean); an operand of another kind is unknown, and a
    /// comparison with one is not counted.
    private static func comparesTwoTypes(_ rule: FlagValue, _ context: [String: FlagValue]) -> Bool {
        switch rule {
        case .list(let items): return items.contains { comparesTwoTypes($0, context) }
        case .structure(let members):
            guard members.count == 1, let (op, argument) = members.first else { return false }
            if case .list(let operands) = argument, comparisons.contains(op) {
                var kinds = Set<String>()
                for (index, operand) in operands.enumerated() {
                    // `in`'s second operand: a string searched, or a list whose members are compared.
                    if op == "in", index == 1, case .list(let members) = operand {
                        kinds.formUnion(members.map { operandKind($0, context) })
                    } else {
                        kinds.insert(operandKind(operand, context))
                    }
                }
                // Only operands whose type is known count: an unknown one proves nothing.
                if kinds.count > 1, !kinds.contains("unknown") { return true }
            }
            return comparesTwoTypes(argument, context)
        default: return false
        }
    }

    private static func operandKind(_ operand: FlagValue, _ context: [String: FlagValue]) -> String {
        guard case .structure(let members) = operand, members.count == 1, let (op, argument) = members.first else {
            return kind(operand)
        }
        switch op {
        case "var":
            var name = argument
            var fallback = FlagValue.null
            if case .list(let parts) = argument {
                name = parts.first ?? .null
                fallback = parts.count > 1 ? parts[1] : .null
            }
            guard case .string(let key) = name else { return "unknown" }
            if key == "$flagd.flagKey" { return "string" }
            let value = context[key] ?? .null
            return kind(value == .null ? fallback : value)
        case "==", "!=", "===", "!==", "<", "<=", ">", ">=", "!", "!!", "in": return "boolean"
        default: return "unknown"  // null or a Boolean (flagd's operators), a string (`cat`), ...
        }
    }

    // MARK: Both sides

    static func evaluate(_ testCase: Case, bucketing: FractionalBucketing = .stringHash) -> Outcome {
        let set: FlagSet
        do {
            set = try FlagSet.parse(testCase.flags.description, file: "generated.flagd.json", bucketing: bucketing)
        } catch {
            return Outcome(value: testCase.defaultValue.description, reason: "ERROR", errorCode: "PARSE_ERROR")
        }
        let store = FlagStore([set])
        let context = FlagEvaluationContext(
            targetingKey: testCase.context["targetingKey"]?.stringValue,
            attributes: testCase.context.filter { $0.key != "targetingKey" })
        func outcome<T>(_ details: FlagEvaluationDetails<T>, _ value: (T) -> FlagValue) -> Outcome {
            Outcome(
                value: value(details.value).description, variant: details.variant,
                reason: details.reason.rawValue, errorCode: details.errorCode?.rawValue)
        }
        switch (testCase.type, testCase.defaultValue) {
        case ("boolean", .bool(let fallback)):
            return outcome(store.evaluation("f", default: fallback, context: context)) { .bool($0) }
        case ("string", .string(let fallback)):
            return outcome(store.evaluation("f", default: fallback, context: context)) { .string($0) }
        case ("integer", .number(let fallback)):
            return outcome(store.evaluation("f", default: Int(fallback), context: context)) { .number(Double($0)) }
        case ("float", .number(let fallback)):
            return outcome(store.evaluation("f", default: fallback, context: context)) { .number($0) }
        default:
            return outcome(store.evaluation("f", default: testCase.defaultValue, context: context)) { $0 }
        }
    }

    static func outcome(python answer: FlagValue) -> Outcome {
        guard case .structure(let fields) = answer else { return Outcome(value: "?", reason: "?") }
        return Outcome(
            value: (fields["value"] ?? .null).description, variant: fields["variant"]?.stringValue,
            reason: fields["reason"]?.stringValue ?? "?", errorCode: fields["errorCode"]?.stringValue)
    }
}
