import ConfigurationFiles
import FeatureFlags
import Foundation
import TestSupport
import Testing

/// flagd-testbed's own feature files (Tests/Fixtures/FlagdTestbed, the release in its VERSION), run
/// as written against this evaluator: the evaluator suite (`evaluator/`) and the in-process
/// provider's file-mode suites (`gherkin/`), with the flags the testbed's flagd serves. Nobody here
/// wrote a scenario; the steps are interpreted, and a step this interpreter does not know fails its
/// scenario rather than skipping it.
///
/// A scenario tagged `@fractional-v3` runs with ``FractionalBucketing/cbor`` (canonical CBOR, which
/// flagd's evaluators are moving to), every other with the default string hash of flagd's Go
/// evaluator (`@fractional-v2`). Left out, by tag, with why (``excludedTags``): the legacy float
/// bucketing (`@fractional-v1`, which no flagd evaluator uses now), connection loss (`@grace`: no connection
/// in file mode), and the suite testbed itself marks `@deprecated` (contradicted by
/// `@no-default-variant`, which runs). A scenario tagged for RPC alone does not apply in-process.
@Suite("flagd-testbed")
struct FlagdTestbedTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/FlagdTestbed")

    static let excludedTags: [String: String] = [
        "@fractional-v1": "legacy float bucketing, replaced by v2 in flagd",
        "@grace": "connection loss, which file mode has none of",
        "@deprecated": "superseded by @no-default-variant",
    ]

    static let features: [(file: String, scenarios: [GherkinScenario])] = {
        var features: [(String, [GherkinScenario])] = []
        for folder in ["evaluator/gherkin", "gherkin"] {
            let directory = root.appendingPathComponent(folder)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
            for name in names.sorted() where name.hasSuffix(".feature") {
                let file = "\(folder)/\(name)"
                do {
                    let text = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
                    features.append((file, try GherkinScenario.parse(text, file: file)))
                } catch {
                    features.append(
                        (
                            file,
                            [GherkinScenario(file: file, line: 0, name: "\(error)", tags: ["@unreadable"], steps: [])]
                        ))
                }
            }
        }
        return features
    }()

    static func applies(_ scenario: GherkinScenario) -> Bool {
        if scenario.tags.contains(where: { excludedTags[$0] != nil }) { return false }
        // The provider suites name the modes a scenario is for; file mode is in-process.
        if scenario.file.hasPrefix("gherkin/"), scenario.tags.contains("@rpc"), !scenario.tags.contains("@in-process") {
            return false
        }
        return true
    }

    static let scenarios: [GherkinScenario] = features.flatMap(\.scenarios).filter(applies)

    @Test("every feature file parses, and the suite is all there")
    func suiteIsComplete() {
        #expect(Self.features.count == 17)
        for (file, scenarios) in Self.features {
            #expect(!scenarios.contains { $0.tags.contains("@unreadable") }, "\(file): \(scenarios.first?.name ?? "")")
        }
        // Counted from the 3.9.0 files: a runner that lost scenarios would pass vacuously.
        #expect(Self.scenarios.count == 395, "\(Self.scenarios.count) scenarios apply")
    }

    @Test(arguments: scenarios)
    func scenario(_ scenario: GherkinScenario) throws {
        var run = try TestbedRun(bucketing: scenario.tags.contains("@fractional-v3") ? .cbor : .stringHash)
        for step in scenario.steps {
            try run.perform(step, in: scenario)
        }
        #expect(run.evaluated, "the scenario evaluated no flag")
    }
}

/// The state of one scenario, and what each of the testbed's steps does to it.
struct TestbedRun {
    enum FlagType: String {
        case boolean = "Boolean"
        case string = "String"
        case integer = "Integer"
        case float = "Float"
        case object = "Object"
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    var store: FlagStore?
    var selector: String?
    var flagType = FlagType.string
    var flagKey = ""
    var fallback = ""
    var context = FlagEvaluationContext()
    var result: (value: FlagValue, reason: FlagEvaluationReason, error: FlagErrorCode?, metadata: [String: FlagValue])?
    var evaluated = false
    let served: TestbedFlags
    let bucketing: FractionalBucketing

    init(bucketing: FractionalBucketing) throws {
        served = try TestbedFlags.shared.get()
        self.bucketing = bucketing
    }

    mutating func perform(_ step: GherkinScenario.Step, in scenario: GherkinScenario) throws {
        let text = step.text
        let quoted = Self.quoted(text)
        func fail(_ why: String) -> Failure { Failure(description: "\(scenario.file):\(step.line): \(why): \(text)") }

        if text == "an evaluator" {
            store = FlagStore(
                sources: [.file(served.evaluatorFlags)], watchesFiles: false, fractionalBucketing: bucketing)
        } else if text.hasPrefix("an option "), quoted.count == 3 {
            switch quoted[0] {
            case "selector": selector = quoted[2]
            // The RPC provider's cache: nothing in-process caches answers.
            case "cache": break
            default: throw fail("an option this runner does not know")
            }
        } else if text == "a stable flagd provider" {
            // The testbed's flagd: the combined flags and the selector flags, its static context.
            store = try served.store(
                sources: [served.combined, served.rawFlags("selector-flags.json")], selector: selector,
                context: FlagEvaluationContext(attributes: ["injectedmetadata": .string("set")]), bucketing: bucketing)
        } else if text == "a metadata flagd provider" {
            store = try served.store(
                sources: [served.rawFlags("selector-flag-combined-metadata.json")], selector: selector,
                context: FlagEvaluationContext(), bucketing: bucketing)
        } else if let type = Self.flagStep(text), quoted.count == 2 {
            flagType = type
            flagKey = quoted[0]
            fallback = quoted[1]
        } else if text.hasPrefix("a context containing a targeting key with value"), quoted.count == 1 {
            context.targetingKey = quoted[0]
        } else if let (key, type, value) = Self.typedContextStep(text) {
            context.attributes[key] = value == "null" && type != "String" ? .null : try Self.typed(value, as: type)
        } else if text.hasPrefix("a context containing a nested property"), quoted.count == 3 {
            var inner: [String: FlagValue] = [:]
            if case .structure(let existing) = context.attributes[quoted[0]] { inner = existing }
            inner[quoted[1]] = .string(quoted[2])
            context.attributes[quoted[0]] = .structure(inner)
        } else if text == "the flag was evaluated with details" {
            guard let store else { throw fail("no evaluator or provider before evaluating") }
            result = try Self.evaluate(store, flagType, key: flagKey, fallback: fallback, context: context)
            evaluated = true
        } else if text.hasPrefix("the resolved details value should be"), quoted.count == 1 {
            guard let result else { throw fail("nothing evaluated") }
            let expected = try Self.typed(quoted[0], as: flagType.rawValue)
            #expect(result.value == expected, "\(scenario.testDescription): \(text)")
        } else if text.hasPrefix("the reason should be"), quoted.count == 1 {
            guard let result else { throw fail("nothing evaluated") }
            #expect(result.reason.rawValue == quoted[0], "\(scenario.testDescription): \(text)")
        } else if text.hasPrefix("the error-code should be"), quoted.count == 1 {
            guard let result else { throw fail("nothing evaluated") }
            #expect(result.error?.rawValue ?? "" == quoted[0], "\(scenario.testDescription): \(text)")
        } else if text == "the resolved metadata should contain" {
            guard let result else { throw fail("nothing evaluated") }
            guard step.table.first == ["key", "metadata_type", "value"] else { throw fail("an unexpected table") }
            for row in step.table.dropFirst() {
                #expect(
                    result.metadata[row[0]] == (try Self.typed(row[2], as: row[1])),
                    "\(scenario.testDescription): metadata \(row[0]) is \(String(describing: result.metadata[row[0]]))")
            }
        } else if text == "the resolved metadata is empty" {
            guard let result else { throw fail("nothing evaluated") }
            #expect(result.metadata.isEmpty, "\(scenario.testDescription): metadata \(result.metadata)")
        } else {
            throw fail("a step this runner does not know")
        }
    }

    /// The strings between double quotes in a step, in order (`\"` inside is a quote).
    static func quoted(_ text: String) -> [String] {
        var strings: [String] = []
        var current: String?
        var escaped = false
        for character in text {
            if var string = current {
                if escaped {
                    string.append(character)
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == "\"" {
                    strings.append(string)
                    current = nil
                    continue
                } else {
                    string.append(character)
                }
                current = string
            } else if character == "\"" {
                current = ""
            }
        }
        return strings
    }

    /// `a context containing a key "K", with type "T" and with value "V"`, where V is taken whole
    /// (an example's JSON object puts unescaped quotes in it).
    static func typedContextStep(_ text: String) -> (String, String, String)? {
        let start = "a context containing a key \""
        let typeMark = "\", with type \""
        let valueMark = "\" and with value \""
        guard text.hasPrefix(start), text.hasSuffix("\""), let typeRange = text.range(of: typeMark),
            let valueRange = text.range(of: valueMark, range: typeRange.upperBound..<text.endIndex)
        else { return nil }
        let key = String(text[text.index(text.startIndex, offsetBy: start.count)..<typeRange.lowerBound])
        let type = String(text[typeRange.upperBound..<valueRange.lowerBound])
        let value = String(text[valueRange.upperBound..<text.index(before: text.endIndex)])
        return (key, type, value)
    }

    /// `a <Type>-flag with key "K" and a fallback value "V"` (the evaluator suite) or `... a default value ...`.
    static func flagStep(_ text: String) -> FlagType? {
        guard text.hasPrefix("a "), let dash = text.firstIndex(of: "-"),
            text[dash...].hasPrefix("-flag with key "),
            text.contains(" and a fallback value ") || text.contains(" and a default value ")
        else { return nil }
        return FlagType(rawValue: String(text[text.index(text.startIndex, offsetBy: 2)..<dash]))
    }

    static func typed(_ text: String, as type: String) throws -> FlagValue {
        switch type {
        case "String": return .string(text)
        case "Boolean":
            guard let value = Bool(text) else { throw Failure(description: "not a Boolean: \(text)") }
            return .bool(value)
        case "Integer":
            guard let value = Int(text) else { throw Failure(description: "not an Integer: \(text)") }
            return .number(Double(value))
        case "Float":
            guard let value = Double(text) else { throw Failure(description: "not a Float: \(text)") }
            return .number(value)
        case "Object":
            var reader = TestbedJSON(text)
            return try reader.document()
        default: throw Failure(description: "an unknown type \(type)")
        }
    }

    static func evaluate(
        _ store: FlagStore, _ type: FlagType, key: String, fallback: String, context: FlagEvaluationContext
    ) throws -> (FlagValue, FlagEvaluationReason, FlagErrorCode?, [String: FlagValue]) {
        switch try typed(fallback, as: type.rawValue) {
        case .bool(let value) where type == .boolean:
            let details = store.evaluation(key, default: value, context: context)
            return (.bool(details.value), details.reason, details.errorCode, details.flagMetadata)
        case .string(let value) where type == .string:
            let details = store.evaluation(key, default: value, context: context)
            return (.string(details.value), details.reason, details.errorCode, details.flagMetadata)
        case .number(let value) where type == .integer:
            let details = store.evaluation(key, default: Int(value), context: context)
            return (.number(Double(details.value)), details.reason, details.errorCode, details.flagMetadata)
        case .number(let value) where type == .float:
            let details = store.evaluation(key, default: value, context: context)
            return (.number(details.value), details.reason, details.errorCode, details.flagMetadata)
        case let value:
            let details = store.evaluation(key, default: value, context: context)
            return (details.value, details.reason, details.errorCode, details.flagMetadata)
        }
    }
}

/// The flags the testbed's flagd serves, laid out as its launchpad lays them out: every file of
/// `flags/` but the selector ones merged into `flags/allFlags.json` (a deep merge, files in name
/// order), and the selector files as `rawflags/NAME`. Sources are named by those paths, as the
/// testbed's selectors name them.
final class TestbedFlags: Sendable {
    let directory: TemporaryDirectory
    let evaluatorFlags: String
    var combined: String { directory.path + "/flags/allFlags.json" }
    func rawFlags(_ name: String) -> String { directory.path + "/rawflags/" + name }

    private init() throws {
        directory = try TemporaryDirectory()
        let manager = FileManager.default
        try manager.createDirectory(atPath: directory.path + "/flags", withIntermediateDirectories: true)
        try manager.createDirectory(atPath: directory.path + "/rawflags", withIntermediateDirectories: true)
        let source = FlagdTestbedTests.root.appendingPathComponent("flags")
        var merged: [String: Any] = [:]
        for name in try manager.contentsOfDirectory(atPath: source.path).sorted() where name.hasSuffix(".json") {
            let data = try Data(contentsOf: source.appendingPathComponent(name))
            if name.hasPrefix("selector-") {
                try data.write(to: URL(fileURLWithPath: directory.path + "/rawflags/" + name))
            } else if let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] {
                merged = Self.deepMerge(merged, object)
            }
        }
        try JSONSerialization.data(withJSONObject: merged, options: [.sortedKeys]).write(
            to: URL(fileURLWithPath: directory.path + "/flags/allFlags.json"))
        evaluatorFlags = FlagdTestbedTests.root.appendingPathComponent("evaluator/flags/testkit-flags.json").path
    }

    private static func deepMerge(_ base: [String: Any], _ other: [String: Any]) -> [String: Any] {
        var result = base
        for (key, value) in other {
            if let left = result[key] as? [String: Any], let right = value as? [String: Any] {
                result[key] = deepMerge(left, right)
            } else {
                result[key] = value
            }
        }
        return result
    }

    /// A store over `sources`; a selector's location is the testbed's path (`rawflags/NAME`),
    /// which names the file laid out here.
    func store(
        sources: [String], selector: String?, context: FlagEvaluationContext, bucketing: FractionalBucketing
    ) throws -> FlagStore {
        var parsed: FlagSelector?
        if let selector {
            parsed = try FlagSelector(selector)
            if case .source(let location) = parsed?.criterion {
                parsed = FlagSelector(.source(directory.path + "/" + location))
            }
        }
        return FlagStore(
            sources: sources.map(FlagSource.file), watchesFiles: false, context: context, selector: parsed,
            fractionalBucketing: bucketing)
    }

    /// Laid out once for every scenario.
    static let shared = Result { try TestbedFlags() }
}

/// JSON as the testbed's own runners read a step's value (Go's, Python's and Java's parsers): a
/// key given twice in an object keeps its last value. (Flag files are read by the project's
/// reader, which refuses that; here it only builds a context the way the other languages do.)
struct TestbedJSON {
    private let bytes: [UInt8]
    private var index = 0

    init(_ text: String) { bytes = Array(text.utf8) }

    mutating func document() throws -> FlagValue {
        let value = try self.value()
        skipSpace()
        guard index == bytes.count else { throw TestbedRun.Failure(description: "trailing text in JSON") }
        return value
    }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipSpace() {
        while let byte = current, [0x20, 0x0a, 0x0d, 0x09].contains(byte) { index += 1 }
    }

    private mutating func value() throws -> FlagValue {
        skipSpace()
        switch current {
        case nil: throw TestbedRun.Failure(description: "JSON ends early")
        case UInt8(ascii: "{"):
            index += 1
            var members: [String: FlagValue] = [:]
            skipSpace()
            if current == UInt8(ascii: "}") {
                index += 1
                return .structure(members)
            }
            while true {
                skipSpace()
                let key = try string()
                skipSpace()
                try expect(":")
                members[key] = try value()
                skipSpace()
                if current == UInt8(ascii: ",") {
                    index += 1
                    continue
                }
                try expect("}")
                return .structure(members)
            }
        case UInt8(ascii: "["):
            index += 1
            var items: [FlagValue] = []
            skipSpace()
            if current == UInt8(ascii: "]") {
                index += 1
                return .list(items)
            }
            while true {
                items.append(try value())
                skipSpace()
                if current == UInt8(ascii: ",") {
                    index += 1
                    continue
                }
                try expect("]")
                return .list(items)
            }
        case UInt8(ascii: "\""): return .string(try string())
        default:
            let start = index
            while let byte = current, !",]} \n\t\r".utf8.contains(byte) { index += 1 }
            let word = String(decoding: bytes[start..<index], as: UTF8.self)
            switch word {
            case "true": return .bool(true)
            case "false": return .bool(false)
            case "null": return .null
            default:
                guard let number = Double(word) else { throw TestbedRun.Failure(description: "not JSON: \(word)") }
                return .number(number)
            }
        }
    }

    private mutating func expect(_ character: Character) throws {
        guard current == character.asciiValue else {
            throw TestbedRun.Failure(description: "expected \(character) in JSON")
        }
        index += 1
    }

    /// A string without escapes: the testbed's values have none.
    private mutating func string() throws -> String {
        try expect("\"")
        let start = index
        while let byte = current, byte != UInt8(ascii: "\"") {
            guard byte != UInt8(ascii: "\\") else { throw TestbedRun.Failure(description: "an escape in JSON") }
            index += 1
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        try expect("\"")
        return text
    }
}
