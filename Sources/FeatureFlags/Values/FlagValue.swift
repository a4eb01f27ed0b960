/// A value in a flag definition, an evaluation context or a targeting rule: the JSON data model.
public enum FlagValue: Sendable, Hashable {
    case null
    case bool(Bool)
    /// JSON has one number type; integers are exact up to 2^53.
    case number(Double)
    case string(String)
    case list([FlagValue])
    case structure([String: FlagValue])

    /// The string, if this is one.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The Boolean, if this is one.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The number, if this is one.
    public var numberValue: Double? {
        if case .number(let value) = self { return value }
        return nil
    }

    /// The number as an integer, if this is a number with no fractional part that fits `Int`.
    public var integerValue: Int? {
        guard case .number(let value) = self, value.rounded(.towardZero) == value,
            value >= -9_007_199_254_740_992, value <= 9_007_199_254_740_992
        else { return nil }
        return Int(value)
    }

    /// The name of the value's JSON type, for messages.
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .list: "array"
        case .structure: "object"
        }
    }
}

extension FlagValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: FlagValue...) { self = .list(elements) }
    public init(dictionaryLiteral elements: (String, FlagValue)...) {
        self = .structure(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

extension FlagValue: CustomStringConvertible {
    /// The value as compact JSON.
    public var description: String {
        switch self {
        case .null: return "null"
        case .bool(let value): return value ? "true" : "false"
        case .number(let value): return Self.format(value)
        case .string(let value): return Self.quote(value)
        case .list(let values): return "[" + values.map(\.description).joined(separator: ",") + "]"
        case .structure(let members):
            let body = members.sorted { $0.key < $1.key }.map { Self.quote($0.key) + ":" + $0.value.description }
            return "{" + body.joined(separator: ",") + "}"
        }
    }

    /// A number as JSON and JavaScript print it: integers without a fraction.
    static func format(_ number: Double) -> String {
        if number.isNaN { return "NaN" }
        if number.isInfinite { return number < 0 ? "-Infinity" : "Infinity" }
        if number.rounded(.towardZero) == number, abs(number) < 1e21 {
            if let integer = Int64(exactly: number) { return String(integer) }
            return integerDigits(number)
        }
        return String(number)
    }

    /// An integral number of 2^63 or more (and under 1e21) written out in full, as JavaScript
    /// does: the shortest digits that read back as the same double, then zeros.
    private static func integerDigits(_ number: Double) -> String {
        let shortest = String(abs(number))  // such as "1.2345678901234568e+20" or "1e+20"
        guard let e = shortest.firstIndex(of: "e"), let exponent = Int(shortest[shortest.index(after: e)...]) else {
            return shortest
        }
        let digits = shortest[..<e].filter { $0 != "." }
        let zeros = max(0, exponent - (digits.count - 1))
        return (number < 0 ? "-" : "") + digits + String(repeating: "0", count: zeros)
    }

    private static func quote(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case let c where c.value < 0x20:
                let hex = String(c.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
