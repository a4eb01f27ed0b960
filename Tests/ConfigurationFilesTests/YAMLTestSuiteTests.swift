import ConfigurationFiles
import Foundation
import Testing

/// The YAML reader against the official YAML test suite (github.com/yaml/yaml-test-suite, branch
/// `data`, MIT-licensed; the cases are in Tests/Fixtures/YAMLTestSuite with its License and the
/// commit in VERSION), which nobody here wrote. Every case either
/// - reads equal to its `in.json`, or
/// - is refused with a message naming a feature this reader refuses on purpose (anchors and
///   aliases, tags, complex keys, several documents, an empty stream), or
/// - is an `error` case, and is refused.
/// A valid case with no `in.json` (its value has no JSON form) must be refused too: its reading
/// could not be checked.
@Suite("YAML test suite")
struct YAMLTestSuiteTests {
    struct Case: CustomStringConvertible, Sendable {
        let id: String
        let name: String
        let yaml: String
        /// The JSON text of the value, when the case is valid and has one.
        let json: String?
        let invalid: Bool

        var description: String { "\(id) (\(name))" }
    }

    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/YAMLTestSuite")

    static let cases: [Case] = {
        let manager = FileManager.default
        var found: [Case] = []
        func read(_ path: String) -> String? { try? String(contentsOfFile: path, encoding: .utf8) }
        func add(_ path: String, id: String) {
            guard let yaml = read(path + "/in.yaml") else { return }
            found.append(
                Case(
                    id: id, name: (read(path + "/===") ?? "").trimmingCharacters(in: .whitespacesAndNewlines),
                    yaml: yaml, json: read(path + "/in.json"), invalid: manager.fileExists(atPath: path + "/error")))
        }
        let names = (try? manager.contentsOfDirectory(atPath: directory.path)) ?? []
        for name in names.sorted() {
            let path = directory.path + "/" + name
            var isDirectory: ObjCBool = false
            guard manager.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else { continue }
            if manager.fileExists(atPath: path + "/in.yaml") {
                add(path, id: name)
            } else {
                for sub in ((try? manager.contentsOfDirectory(atPath: path)) ?? []).sorted() {
                    add(path + "/" + sub, id: name + "/" + sub)
                }
            }
        }
        return found
    }()

    /// What a refusal of a valid case must name: a feature refused on purpose (Docs/Policy.md).
    static let deliberateRefusals = [
        "anchors are not allowed", "aliases are not allowed", "tags are not allowed", "explicit keys",
        "complex keys are not supported", "an empty key is not supported", "holds one YAML document",
        "the document is empty", "refuses tabs where indentation stands", "is refused: this reader reads YAML 1.2 only",
    ]

    /// Valid cases whose value has no `in.json`: what they mean, from the suite's own `test.event`.
    static let meanings = [
        // +MAP {} =VAL :unquoted =VAL "separate =VAL :http://foo.com =VAL : =VAL :omitted value =VAL :
        "4ABK": #"{"unquoted":"separate","http://foo.com":null,"omitted value":null}"#
    ]

    enum Verdict: Equatable {
        case readAsSuiteSays
        case refusedInvalid
        case refusedOnPurpose(String)
        case misread(String)
        case acceptedInvalid(String)
        case refusedWithoutReason(String)
        case readUnchecked(String)
    }

    static func verdict(_ test: Case) -> Verdict {
        let node: DocumentNode
        do {
            node = try YAMLDocumentReader.read(test.yaml, file: "in.yaml")
        } catch {
            if test.invalid { return .refusedInvalid }
            let message = error.message
            if deliberateRefusals.contains(where: { message.contains($0) }) { return .refusedOnPurpose(message) }
            return .refusedWithoutReason("\(error)")
        }
        let ours = YAMLDocumentReaderTests.render(node)
        if test.invalid { return .acceptedInvalid(ours) }
        // The suite's JSON through this package's JSON reader (held to RFC 8259 by its own tests);
        // a stream of several documents or none has no single JSON value, and must have been refused.
        if let meaning = meanings[test.id] { return ours == meaning ? .readAsSuiteSays : .misread("ours \(ours)") }
        guard let json = test.json, let value = try? JSONDocumentReader.read(json, file: "in.json") else {
            return .readUnchecked(ours)
        }
        let theirs = YAMLDocumentReaderTests.render(value)
        return equal(node, value) ? .readAsSuiteSays : .misread("ours \(ours), the suite's \(theirs)")
    }

    static func equal(_ ours: DocumentNode, _ theirs: DocumentNode) -> Bool {
        switch (ours.kind, theirs.kind) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.number(let a), .number(let b)): return a == b
        case (.string(let a), .string(let b)): return a == b
        case (.array(let a), .array(let b)): return a.count == b.count && zip(a, b).allSatisfy { equal($0, $1) }
        case (.object(let a), .object(let b)):
            return a.count == b.count
                && a.allSatisfy { member in
                    b.first { $0.key == member.key }.map { equal(member.value, $0.value) } ?? false
                }
        default: return false
        }
    }

    @Test("the suite is there: every case folder has its input")
    func suitePresent() {
        #expect(Self.cases.count == 402, "found \(Self.cases.count) cases in \(Self.directory.path)")
        #expect(Self.cases.filter(\.invalid).count == 94)
    }

    @Test("no valid case is misread, no invalid case accepted, every refusal of a valid case names why")
    func wholeSuite() {
        var report: [String: [String]] = [:]
        for test in Self.cases {
            switch Self.verdict(test) {
            case .readAsSuiteSays, .refusedInvalid: break
            case .refusedOnPurpose(let why): report["refused on purpose", default: []].append("\(test): \(why)")
            case .misread(let what): report["MISREAD", default: []].append("\(test): \(what)")
            case .acceptedInvalid(let what): report["INVALID ACCEPTED", default: []].append("\(test): \(what)")
            case .refusedWithoutReason(let why): report["VALID REFUSED", default: []].append("\(test): \(why)")
            case .readUnchecked(let what): report["READ, NO JSON TO CHECK", default: []].append("\(test): \(what)")
            }
        }
        for (kind, lines) in report.sorted(by: { $0.key < $1.key }) {
            print("YAML suite: \(kind): \(lines.count)")
            for line in lines { print("  \(line)") }
        }
        #expect(report["MISREAD", default: []] == [])
        #expect(report["INVALID ACCEPTED", default: []] == [])
        #expect(report["VALID REFUSED", default: []] == [])
        #expect(report["READ, NO JSON TO CHECK", default: []] == [])
    }
}
