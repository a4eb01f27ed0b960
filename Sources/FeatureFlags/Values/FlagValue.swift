import ConfigurationFiles

/// A value in a flag definition, an evaluation context or a targeting rule: the JSON data model.
public enum FlagValue: Sendable, Hashable {
    /// JSON's `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// JSON has one number type; integers are exact up to 2^53.
    case number(Double)
    /// A string.
    case string(String)
    /// A JSON array.
    case list([FlagValue])
    /// A JSON object, by key.
    case structure([String: FlagValue])
    /// A point in time (OpenFeature's `datetime`), for evaluation contexts and hook hints. JSON
    /// has no such type: it is written as its RFC 3339 string, which is also what targeting
    /// rules compare, as flagd's do with a context it received as JSON.
    case date(FlagDate)

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

    /// The point in time, if this is one.
    public var dateValue: FlagDate? {
        if case .date(let value) = self { return value }
        return nil
    }

    /// The value as JSON has it: a date becomes its RFC 3339 string, in lists and structures too;
    /// everything else is itself.
    public var jsonValue: FlagValue {
        guard containsDate else { return self }
        switch self {
        case .date(let date): return .string(date.description)
        case .list(let values): return .list(values.map(\.jsonValue))
        case .structure(let members): return .structure(members.mapValues(\.jsonValue))
        default: return self
        }
    }

    /// Whether a date is here or anywhere inside, so that JSON values are not copied for nothing.
    private var containsDate: Bool {
        switch self {
        case .date: true
        case .list(let values): values.contains { $0.containsDate }
        case .structure(let members): members.values.contains { $0.containsDate }
        default: false
        }
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
        case .date: "date"
        }
    }

    /// The type with its article, for messages: "found \(value.describedType)".
    package var describedType: String {
        switch self {
        case .null: "null"
        case .list, .structure: "an " + typeName
        default: "a " + typeName
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
        case .string(let value): return JSONString.quoted(value)
        case .list(let values): return "[" + values.map(\.description).joined(separator: ",") + "]"
        case .structure(let members):
            let body = members.sorted { $0.key < $1.key }.map { JSONString.quoted($0.key) + ":" + $0.value.description }
            return "{" + body.joined(separator: ",") + "}"
        case .date(let date): return JSONString.quoted(date.description)
        }
    }

    /// A number as JavaScript's `String(number)` prints it (ECMAScript's Number::toString):
    /// integers without a fraction, decimal notation from 1e-7 up to 1e21, exponents outside it
    /// (`1e-7`, `1.5e+300`). Rules that concatenate or compare numbers as text see what flagd's
    /// JavaScript-derived evaluators see.
    static func format(_ number: Double) -> String {
        if number.isNaN { return "NaN" }
        if number.isInfinite { return number < 0 ? "-Infinity" : "Infinity" }
        if number == 0 { return "0" }
        // magnitude, not abs: abs(Int64.min) traps.
        if let integer = Int64(exactly: number), integer.magnitude < 1 << 53 { return String(integer) }
        // Swift prints the shortest digits that read back as the same double; only the layout differs.
        let shortest = String(abs(number))  // "0.1", "1e-05", "1.2345678901234568e+20"
        let mantissa: Substring
        var exponent = 0
        if let e = shortest.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            mantissa = shortest[..<e]
            exponent = Int(shortest[shortest.index(after: e)...]) ?? 0
        } else {
            mantissa = shortest[...]
        }
        let point = mantissa.firstIndex(of: ".") ?? mantissa.endIndex
        let whole = mantissa[..<point]
        let fraction = point == mantissa.endIndex ? "" : mantissa[mantissa.index(after: point)...]
        var digits = String(whole) + fraction
        // n: where the decimal point falls relative to the digits, as in the specification.
        var n = whole.count + exponent
        let leadingZeros = digits.prefix { $0 == "0" }.count
        digits.removeFirst(leadingZeros)
        n -= leadingZeros
        while digits.count > 1, digits.last == "0" { digits.removeLast() }
        let k = digits.count
        let text: String
        if k <= n, n <= 21 {
            text = digits + String(repeating: "0", count: n - k)
        } else if 0 < n, n <= 21 {
            text = String(digits.prefix(n)) + "." + digits.dropFirst(n)
        } else if -6 < n, n <= 0 {
            text = "0." + String(repeating: "0", count: -n) + digits
        } else {
            let power = n - 1
            let sign = power < 0 ? "-" : "+"
            text = String(digits.prefix(1)) + (k > 1 ? "." + digits.dropFirst() : "") + "e" + sign + String(abs(power))
        }
        return (number < 0 ? "-" : "") + text
    }
}
