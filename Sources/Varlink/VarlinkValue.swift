import ConfigurationFiles

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
        String(decoding: message(terminated: false), as: UTF8.self)
    }

    /// The value as compact JSON in UTF-8, ended by a NUL when `terminated`: a message as
    /// varlink sends it, written as bytes (no string is built on the way).
    package func message(terminated: Bool = true) -> [UInt8] {
        var bytes: [UInt8] = []
        // A decision with its explanation, as root is told it, is 600 bytes or so: grown once at most.
        bytes.reserveCapacity(1024)
        write(to: &bytes)
        if terminated { bytes.append(0) }
        return bytes
    }

    private func write(to bytes: inout [UInt8]) {
        switch self {
        case .null: bytes += "null".utf8
        case .bool(let value): bytes += (value ? "true" : "false").utf8
        case .int(let value): bytes += String(value).utf8
        case .float(let value): bytes += (value.isFinite ? String(value) : "null").utf8
        case .string(let value): JSONString.append(value, to: &bytes)
        case .array(let values):
            bytes.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                value.write(to: &bytes)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let members):
            bytes.append(UInt8(ascii: "{"))
            for (index, member) in members.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                JSONString.append(member.key, to: &bytes)
                bytes.append(UInt8(ascii: ":"))
                member.value.write(to: &bytes)
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    /// The type with its article, for messages, in JSON's words: "is \(value.describedType)".
    var describedType: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .int, .float: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}
