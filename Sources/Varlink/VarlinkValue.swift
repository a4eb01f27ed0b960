package import ConfigurationFiles

/// A JSON value as varlink carries it: what a call's parameters hold and a reply's are made of.
/// Numbers stay apart as integers and floating point, as varlink's `int` and `float` do.
public enum VarlinkValue: Sendable, Equatable {
    /// JSON's `null`: an optional (`?type`) member without a value.
    case null
    /// A `bool`.
    case bool(Bool)
    /// An `int`: a number without a fraction.
    case int(Int64)
    /// A `float`.
    case float(Double)
    /// A `string`.
    case string(String)
    /// An array (`[]type`).
    case array([VarlinkValue])
    /// Members in the order written (replies are written in this order).
    case object([(key: String, value: VarlinkValue)])

    public static func == (lhs: VarlinkValue, rhs: VarlinkValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.int(let a), .int(let b)): a == b
        case (.float(let a), .float(let b)): a == b
        case (.string(let a), .string(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)):
            a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: false
        }
    }

    /// The member `key` of an object, or nil.
    public subscript(key: String) -> VarlinkValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    /// The value as compact JSON.
    public var json: String {
        var text = ""
        write(to: &text)
        return text
    }

    private func write(to text: inout String) {
        switch self {
        case .null: text += "null"
        case .bool(let value): text += value ? "true" : "false"
        case .int(let value): text += String(value)
        case .float(let value): text += value.isFinite ? String(value) : "null"
        case .string(let value): Self.quote(value, into: &text)
        case .array(let values):
            text += "["
            for (index, value) in values.enumerated() {
                if index > 0 { text += "," }
                value.write(to: &text)
            }
            text += "]"
        case .object(let members):
            text += "{"
            for (index, member) in members.enumerated() {
                if index > 0 { text += "," }
                Self.quote(member.key, into: &text)
                text += ":"
                member.value.write(to: &text)
            }
            text += "}"
        }
    }

    private static func quote(_ string: String, into text: inout String) {
        text += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                let hex = String(scalar.value, radix: 16)
                text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }

    /// The value a parsed document holds; an integer is one only when the number is whole (the
    /// reader refuses integers past 2^53, which a double would round).
    package init(_ node: DocumentNode) {
        switch node.kind {
        case .null: self = .null
        case .bool(let value): self = .bool(value)
        case .number(let value):
            if value.rounded(.towardZero) == value, let exact = Int64(exactly: value) {
                self = .int(exact)
            } else {
                self = .float(value)
            }
        case .string(let value): self = .string(value)
        case .array(let values): self = .array(values.map(VarlinkValue.init))
        case .object(let members): self = .object(members.map { ($0.key, VarlinkValue($0.value)) })
        }
    }
}
