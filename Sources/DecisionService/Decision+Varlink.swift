import CapabilityPolicy
import ConfigurationFiles
import Glibc
import ProcedureCore
import Varlink

/// A decision as `org.capctl.gates.Decision`, the one encoder and the one decoder of it: the
/// service writes it, ``DecisionClient`` reads it, and both use ``Decision/Outcome``'s words.
extension Decision {
    /// The decision as the interface's `Decision`.
    var varlinkValue: VarlinkValue {
        .object([
            ("gate", .string(gate)), ("outcome", .string(outcome.rawValue)),
            ("description", description.map(VarlinkValue.string) ?? .null),
            ("actions", .array(actions.map(VarlinkValue.string))),
            ("explanation", explanation.map(Self.value) ?? .null),
        ])
    }

    /// A `Check` reply of the decision, `{"parameters":{"decision":...}}` and its NUL: the bytes
    /// ``VarlinkReplies/encodedReply(_:)`` makes of ``varlinkValue``, written without building
    /// the value first (a decision with the explanation root is told is twenty-odd values, made to
    /// be written once; DecisionTests compares the two).
    var checkReply: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(1024)
        bytes += #"{"parameters":{"decision":{"gate":"#.utf8
        JSONString.append(gate, to: &bytes)
        bytes += #","outcome":"#.utf8
        JSONString.append(outcome.rawValue, to: &bytes)
        bytes += #","description":"#.utf8
        if let description { JSONString.append(description, to: &bytes) } else { bytes += "null".utf8 }
        bytes += #","actions":["#.utf8
        for (index, action) in actions.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            JSONString.append(action, to: &bytes)
        }
        bytes += #"],"explanation":"#.utf8
        if let explanation { Self.write(explanation, to: &bytes) } else { bytes += "null".utf8 }
        bytes += "}}}\0".utf8
        return bytes
    }

    /// `explanation` as ``value(_:)`` makes it, written.
    private static func write(_ explanation: ConditionExplanation, to bytes: inout [UInt8]) {
        bytes += #"{"condition":"#.utf8
        JSONString.append(explanation.condition, to: &bytes)
        bytes += #","outcome":"#.utf8
        JSONString.append(explanation.outcome.rawValue, to: &bytes)
        bytes += #","reason":"#.utf8
        JSONString.append(explanation.reason, to: &bytes)
        bytes += #","children":["#.utf8
        for (index, child) in explanation.children.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            write(child, to: &bytes)
        }
        bytes += "]}".utf8
    }

    /// A `Check` reply read straight into its decision, when it is exactly what ``checkReply``
    /// writes and every string in it is printable ASCII without an escape; nil for anything else,
    /// which ``DecisionClient`` then reads as any reply. Bytes it reads are JSON the message reader
    /// makes the same decision of (DecisionVarlinkTests holds the two to that, byte by byte
    /// changes included): the value tree, made and torn down, was two fifths of a client's work a
    /// call.
    static func decodedCheckReply(_ bytes: [UInt8]) -> Decision? {
        bytes.withUnsafeBufferPointer { buffer in
            var reader = CheckReplyReader(bytes: buffer)
            return reader.decision()
        }
    }

    /// The decision in a reply; nil when the reply does not hold one (anything unknown in it
    /// reads as no decision, never as a weaker one).
    init?(varlink value: VarlinkValue) {
        guard case .string(let gate)? = value["gate"], case .string(let word)? = value["outcome"],
            let outcome = Outcome(rawValue: word), case .array(let actions)? = value["actions"],
            actions.allSatisfy({ if case .string = $0 { true } else { false } })
        else { return nil }
        let description: String?
        switch value["description"] {
        case .string(let text)?: description = text
        case .null?, nil: description = nil
        default: return nil
        }
        let explanation: ConditionExplanation?
        switch value["explanation"] {
        case .null?, nil: explanation = nil
        case let tree?:
            guard let parsed = Self.explanation(tree) else { return nil }
            explanation = parsed
        }
        self.init(gate: gate, outcome: outcome, description: description, explanation: explanation)
    }

    /// An explanation as the interface's `Explanation`: the tree `capctl check --explain --json` prints.
    private static func value(_ explanation: ConditionExplanation) -> VarlinkValue {
        .object([
            ("condition", .string(explanation.condition)), ("outcome", .string(explanation.outcome.rawValue)),
            ("reason", .string(explanation.reason)), ("children", .array(explanation.children.map(value))),
        ])
    }

    private static func explanation(_ value: VarlinkValue) -> ConditionExplanation? {
        guard case .string(let condition)? = value["condition"], case .string(let word)? = value["outcome"],
            let outcome = ConditionExplanation.Outcome(rawValue: word), case .string(let reason)? = value["reason"],
            case .array(let values)? = value["children"]
        else { return nil }
        var children: [ConditionExplanation] = []
        for child in values {
            guard let parsed = explanation(child) else { return nil }
            children.append(parsed)
        }
        return ConditionExplanation(condition: condition, outcome: outcome, reason: reason, children: children)
    }
}

/// ``Decision/decodedCheckReply(_:)``'s reader: literal by literal, as ``Decision/checkReply``
/// writes a reply, declining anything else.
private struct CheckReplyReader {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0
    /// Explanations nested deeper are left to the message reader (whose limit is 256 levels of
    /// objects and arrays; this is 131).
    static let deepest = 64

    mutating func decision() -> Decision? {
        guard literal(#"{"parameters":{"decision":{"gate":"#), let gate = string(), literal(#","outcome":"#),
            let word = string(), let outcome = Decision.Outcome(rawValue: word), literal(#","description":"#)
        else { return nil }
        var description: String?
        if !literal("null") {
            guard let text = string() else { return nil }
            description = text
        }
        guard literal(#","actions":["#) else { return nil }
        if !literal("]") {
            repeat {
                guard string() != nil else { return nil }
            } while literal(",")
            guard literal("]") else { return nil }
        }
        guard literal(#","explanation":"#) else { return nil }
        var explanation: ConditionExplanation?
        if !literal("null") {
            guard let tree = self.explanation(depth: 0) else { return nil }
            explanation = tree
        }
        guard literal("}}}"), index == bytes.count else { return nil }
        return Decision(gate: gate, outcome: outcome, description: description, explanation: explanation)
    }

    mutating func explanation(depth: Int) -> ConditionExplanation? {
        guard depth < Self.deepest, literal(#"{"condition":"#), let condition = string(), literal(#","outcome":"#),
            let word = string(), let outcome = ConditionExplanation.Outcome(rawValue: word),
            literal(#","reason":"#), let reason = string(), literal(#","children":["#)
        else { return nil }
        var children: [ConditionExplanation] = []
        if !literal("]") {
            repeat {
                guard let child = explanation(depth: depth + 1) else { return nil }
                children.append(child)
            } while literal(",")
            guard literal("]") else { return nil }
        }
        guard literal("}") else { return nil }
        return ConditionExplanation(condition: condition, outcome: outcome, reason: reason, children: children)
    }

    /// Whether `text` comes next (then read past it).
    mutating func literal(_ text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard bytes.count - index >= count, memcmp(bytes.baseAddress! + index, text.utf8Start, count) == 0 else {
            return false
        }
        index += count
        return true
    }

    /// A string in double quotes of printable ASCII without a backslash; nil for any other.
    mutating func string() -> String? {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
        let start = index + 1
        var end = start
        while end < bytes.count, bytes[end] != UInt8(ascii: "\"") {
            guard (0x20..<0x7F).contains(bytes[end]), bytes[end] != UInt8(ascii: "\\") else { return nil }
            end += 1
        }
        guard end < bytes.count else { return nil }
        index = end + 1
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
    }
}
