import Capabilities
public import ConfigurationFiles
import FeatureFlags

/// A file of policy test cases (`capctl test`), beside the policy it tests, read with the
/// project's YAML reader so every mistake in it has a file, line and column:
///
/// ```yaml
/// policy: [policy.yaml]        # optional, relative to this file; else the installed policy
/// cases:
///   - name: an operator exports while the beta is on
///     gate: export
///     assume: { admin: authorized, ops: authorized }
///     flags: { beta: true }
///     expect: holds            # holds, fails, undecided or needsInteraction
///   - gate: export
///     assume: { admin: authorized }
///     expect: fails
///     because: [ops]           # optional: what must be among the parts that did not pass
/// ```
///
/// A case is hermetic: a capability of the gate it does not assume is denied in it, so a test
/// never reads this host's users, files or logins; flags it does not assume are read from the
/// policy's flag files.
public struct PolicyTestFile: Sendable {
    /// One case.
    public struct Case: Sendable {
        /// What the case says it checks (the gate and its line when it gives no name).
        public let name: String
        /// The gate decided.
        public let gate: String
        /// The statuses and flag values given.
        public let assumptions: Assumptions
        /// The gate word expected.
        public let expected: String
        /// Capabilities or flags that must be among the parts that did not pass.
        public let because: [String]
        /// Where the case is.
        public let location: FileLocation
    }

    /// The file's path.
    public let path: String
    /// The policy files it names (absolute); empty: the installed policy.
    public let policyFiles: [String]
    /// Its cases, in file order.
    public let cases: [Case]

    /// The gate words a case may expect (Semantics rule 49).
    public static let words = ["holds", "fails", "undecided", "needsInteraction"]

    /// Reads the test file at `path` (through the trusted reader), reporting every mistake.
    public static func read(_ path: String) throws(PolicyErrors) -> PolicyTestFile {
        let text: String
        do throws(TrustedFile.Refusal) {
            text = String(decoding: try TrustedFile.bytes(of: path), as: UTF8.self)
        } catch {
            throw PolicyErrors(errors: [ConfigurationError("\(error.reason)", file: path)])
        }
        let root: DocumentNode
        do throws(ConfigurationError) {
            root = try YAMLDocumentReader.read(text, file: path)
        } catch {
            throw PolicyErrors(errors: [error])
        }
        var errors: [ConfigurationError] = []
        guard case .object(let members) = root.kind else {
            throw PolicyErrors(errors: [
                ConfigurationError(
                    "a test file is a mapping with cases:, found \(root.describedType)", at: root.location)
            ])
        }
        var policyFiles: [String] = []
        var cases: [Case] = []
        let directory = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        for member in members {
            switch member.key {
            case "policy":
                for file in strings(member.value, what: "policy", errors: &errors) {
                    policyFiles.append(file.hasPrefix("/") ? file : directory + "/" + file)
                }
            case "cases":
                guard case .array(let items) = member.value.kind else {
                    errors.append(
                        ConfigurationError(
                            "cases: is a list, found \(member.value.describedType)", at: member.value.location))
                    continue
                }
                for item in items {
                    if let found = testCase(item, errors: &errors) { cases.append(found) }
                }
            default:
                errors.append(
                    ConfigurationError(
                        "unknown key \"\(member.key)\" (expected \"policy\", \"cases\")", at: member.keyLocation))
            }
        }
        if root.member("cases") == nil { errors.append(ConfigurationError("no cases: in the file", at: root.location)) }
        guard errors.isEmpty else { throw PolicyErrors(errors: errors) }
        return PolicyTestFile(path: path, policyFiles: policyFiles, cases: cases)
    }

    private static func testCase(_ node: DocumentNode, errors: inout [ConfigurationError]) -> Case? {
        guard case .object(let members) = node.kind else {
            errors.append(ConfigurationError("a case is a mapping, found \(node.describedType)", at: node.location))
            return nil
        }
        let before = errors.count
        var name: String?
        var gate: String?
        var expected: String?
        var because: [String] = []
        var assumptions = Assumptions()
        for member in members {
            let value = member.value
            switch member.key {
            case "name": name = string(value, what: "name", errors: &errors)
            case "gate": gate = string(value, what: "gate", errors: &errors)
            case "expect":
                expected = string(value, what: "expect", errors: &errors)
                if let word = expected, !words.contains(word) {
                    errors.append(
                        ConfigurationError(
                            "expect: \"\(word)\" is no gate word (expected \(words.joined(separator: ", ")))",
                            at: value.location))
                }
            case "because": because = strings(value, what: "because", errors: &errors)
            case "assume":
                for (key, status) in pairs(value, what: "assume", errors: &errors) {
                    guard case .string(let word) = status.kind, let kind = CapabilityStatus.Kind(rawValue: word) else {
                        errors.append(
                            ConfigurationError(
                                "assume: \(key) is one of "
                                    + CapabilityStatus.Kind.allCases.map(\.rawValue).joined(separator: ", "),
                                at: status.location))
                        continue
                    }
                    assumptions.capabilities[key] = kind
                }
            case "flags":
                for (key, flag) in pairs(value, what: "flags", errors: &errors) { assumptions.flags[key] = flag.value }
            default:
                errors.append(
                    ConfigurationError(
                        "unknown key \"\(member.key)\" in a case (expected \"name\", \"gate\", \"assume\", \"flags\", "
                            + "\"expect\", \"because\")", at: member.keyLocation))
            }
        }
        if gate == nil { errors.append(ConfigurationError("the case names no gate:", at: node.location)) }
        if expected == nil { errors.append(ConfigurationError("the case has no expect:", at: node.location)) }
        guard errors.count == before, let gate, let expected else { return nil }
        return Case(
            name: name ?? "\(gate) at line \(node.location.line)", gate: gate, assumptions: assumptions,
            expected: expected, because: because, location: node.location)
    }

    private static func string(_ node: DocumentNode, what: String, errors: inout [ConfigurationError]) -> String? {
        guard case .string(let text) = node.kind else {
            errors.append(ConfigurationError("\(what): is a string, found \(node.describedType)", at: node.location))
            return nil
        }
        return text
    }

    private static func strings(_ node: DocumentNode, what: String, errors: inout [ConfigurationError]) -> [String] {
        if case .string(let text) = node.kind { return [text] }
        guard case .array(let items) = node.kind else {
            errors.append(
                ConfigurationError("\(what): is a list of strings, found \(node.describedType)", at: node.location))
            return []
        }
        return items.compactMap { string($0, what: what, errors: &errors) }
    }

    private static func pairs(_ node: DocumentNode, what: String, errors: inout [ConfigurationError]) -> [(
        String, DocumentNode
    )] {
        guard case .object(let members) = node.kind else {
            errors.append(ConfigurationError("\(what): is a mapping, found \(node.describedType)", at: node.location))
            return []
        }
        return members.map { ($0.key, $0.value) }
    }
}
