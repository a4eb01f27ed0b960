import ConfigurationFiles
import Glibc

/// JsonLogic's value rules, which follow JavaScript: truthiness, loose and strict equality,
/// number conversion, string conversion and ordering.
enum JSONLogicSemantics {
    /// JsonLogic truthiness: false, 0, NaN, "", [] and null are falsy; everything else is truthy.
    static func isTruthy(_ value: FlagValue) -> Bool {
        switch value {
        case .null: false
        case .bool(let flag): flag
        case .number(let number): number != 0 && !number.isNaN
        case .string(let text): !text.isEmpty
        case .list(let elements): !elements.isEmpty
        case .structure: true
        // A date reaches a rule as the string a JSON context would carry (FlagValue.jsonValue).
        case .date: true
        }
    }

    /// JavaScript's `Number(value)`.
    static func number(_ value: FlagValue) -> Double {
        switch value {
        case .null: return 0
        case .bool(let flag): return flag ? 1 : 0
        case .number(let number): return number
        case .string(let text):
            let trimmed = text.trimming([" ", "\t", "\n", "\r"])
            if trimmed.isEmpty { return 0 }
            // Swift also reads "inf" and "nan"; JavaScript only spells out Infinity.
            if trimmed.contains(where: { $0 == "n" || $0 == "N" }), !trimmed.hasSuffix("Infinity") { return .nan }
            return Double(trimmed) ?? .nan
        case .list(let elements):
            if elements.isEmpty { return 0 }
            if elements.count == 1 { return number(.string(string(elements[0]))) }
            return .nan
        case .structure: return .nan
        case .date(let date): return number(.string(date.description))
        }
    }

    /// JavaScript's `parseFloat(value)`: the longest numeric prefix of the text.
    static func parseFloat(_ value: FlagValue) -> Double {
        switch value {
        case .number(let number): return number
        case .null, .bool, .structure: return .nan
        case .list(let elements): return elements.first.map(parseFloat) ?? .nan
        case .string(let text):
            return parseDecimalPrefix(text)
        case .date(let date):
            return parseDecimalPrefix(date.description)
        }
    }

    /// The longest prefix of `text` (after leading white space) that reads as a decimal
    /// number or `Infinity`, as JavaScript's parseFloat takes it.
    private static func parseDecimalPrefix(_ text: String) -> Double {
        let scalars = Array(text.unicodeScalars.drop { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" })
        var index = 0
        var sign = ""
        if index < scalars.count, scalars[index] == "+" || scalars[index] == "-" {
            sign = String(scalars[index])
            index += 1
        }
        if scalars[index...].starts(with: "Infinity".unicodeScalars) { return sign == "-" ? -.infinity : .infinity }
        func digits(_ index: inout Int) -> Int {
            let start = index
            while index < scalars.count, ("0"..."9").contains(scalars[index]) { index += 1 }
            return index - start
        }
        let start = index
        var mantissa = digits(&index)
        if index < scalars.count, scalars[index] == "." {
            var after = index + 1
            let fraction = digits(&after)
            if mantissa + fraction > 0 {
                index = after
                mantissa += fraction
            }
        }
        guard mantissa > 0 else { return .nan }
        var end = index
        if index < scalars.count, scalars[index] == "e" || scalars[index] == "E" {
            var exponent = index + 1
            if exponent < scalars.count, scalars[exponent] == "+" || scalars[exponent] == "-" { exponent += 1 }
            if digits(&exponent) > 0 { end = exponent }
        }
        var literal = String.UnicodeScalarView()
        literal.append(contentsOf: scalars[start..<end])
        return Double(sign + String(literal)) ?? .nan
    }

    /// JavaScript's `String(value)`.
    static func string(_ value: FlagValue) -> String {
        switch value {
        case .null: "null"
        case .bool(let flag): flag ? "true" : "false"
        case .number(let number): FlagValue.format(number)
        case .string(let text): text
        case .list(let elements): elements.map { $0 == .null ? "" : string($0) }.joined(separator: ",")
        case .structure: "[object Object]"
        case .date(let date): date.description
        }
    }

    /// JavaScript's `===`, with arrays and objects compared by content. Strings are equal only
    /// code unit for code unit: Swift's `==` would also equate canonically equivalent strings
    /// ("zoe\u{308}" and "zo\u{EB}"), which JavaScript does not.
    static func strictEquals(_ a: FlagValue, _ b: FlagValue) -> Bool {
        switch (a, b) {
        case (.number(let x), .number(let y)): return x == y
        case (.string(let x), .string(let y)): return same(x, y)
        case (.bool(let x), .bool(let y)): return x == y
        case (.null, .null): return true
        case (.list(let x), .list(let y)): return x.count == y.count && zip(x, y).allSatisfy { strictEquals($0, $1) }
        case (.structure(let x), .structure(let y)):
            guard x.count == y.count else { return false }
            for (key, value) in x {
                guard let index = y.index(forKey: key), same(y[index].key, key), strictEquals(value, y[index].value)
                else {
                    return false
                }
            }
            return true
        default: return false
        }
    }

    /// Whether two strings have the same code units. UTF-8 and UTF-16 agree on this, and on
    /// prefixes, suffixes and substrings of valid text, so the native UTF-8 bytes are compared.
    static func same(_ a: String, _ b: String) -> Bool {
        // Swift's == also equates canonically equivalent strings, so it can only rule equality out,
        // but it does so without touching the bytes of small strings.
        guard a == b else { return false }
        return bytes(a) { x in
            bytes(b) { y in x.count == y.count && (x.count == 0 || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0)
            }
        }
    }

    /// JavaScript's `text.includes(part)`; the empty string is in every string.
    static func contains(_ text: String, _ part: String) -> Bool {
        bytes(text) { haystack in
            bytes(part) { needle in
                guard !needle.isEmpty else { return true }
                guard needle.count <= haystack.count else { return false }
                let first = needle[0]
                for start in 0...(haystack.count - needle.count) where haystack[start] == first {
                    if memcmp(haystack.baseAddress! + start, needle.baseAddress!, needle.count) == 0 { return true }
                }
                return false
            }
        }
    }

    /// JavaScript's `startsWith`.
    static func hasPrefix(_ text: String, _ prefix: String) -> Bool {
        bytes(text) { x in
            bytes(prefix) { y in
                y.count <= x.count && (y.isEmpty || memcmp(x.baseAddress!, y.baseAddress!, y.count) == 0)
            }
        }
    }

    /// JavaScript's `endsWith`.
    static func hasSuffix(_ text: String, _ suffix: String) -> Bool {
        bytes(text) { x in
            bytes(suffix) { y in
                y.count <= x.count
                    && (y.isEmpty || memcmp(x.baseAddress! + (x.count - y.count), y.baseAddress!, y.count) == 0)
            }
        }
    }

    /// The string's UTF-8 bytes, without copying a native string.
    private static func bytes<R>(_ text: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        var text = text
        return text.withUTF8(body)
    }

    /// JavaScript's string `<`: UTF-16 code units in order.
    static func precedes(_ a: String, _ b: String, orEqual: Bool) -> Bool {
        var left = a.utf16.makeIterator()
        var right = b.utf16.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return orEqual
            case (nil, _): return true
            case (_, nil): return false
            case (let x?, let y?) where x != y: return x < y
            default: continue
            }
        }
    }

    /// JavaScript's `==`.
    static func looseEquals(_ a: FlagValue, _ b: FlagValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.null, _), (_, .null): return false
        case (.number, .number), (.string, .string), (.bool, .bool): return strictEquals(a, b)
        // Objects and arrays are equal only to themselves in JavaScript; equal content is the closest a value model has.
        case (.list, .list), (.structure, .structure): return strictEquals(a, b)
        case (.bool(let flag), _): return looseEquals(.number(flag ? 1 : 0), b)
        case (_, .bool(let flag)): return looseEquals(a, .number(flag ? 1 : 0))
        case (.number(let x), .string): return x == number(b)
        case (.string, .number(let y)): return number(a) == y
        case (.list, _): return looseEquals(.string(string(a)), b)
        case (_, .list): return looseEquals(a, .string(string(b)))
        default: return false
        }
    }

    /// JavaScript's `a < b` (and the other orderings through it): strings compare as strings,
    /// everything else as numbers; NaN compares false.
    static func less(_ a: FlagValue, _ b: FlagValue, orEqual: Bool) -> Bool {
        let left = primitive(a)
        let right = primitive(b)
        if case .string(let x) = left, case .string(let y) = right { return precedes(x, y, orEqual: orEqual) }
        let x = number(left)
        let y = number(right)
        return orEqual ? x <= y : x < y
    }

    /// Arrays become their string form for ordering, as JavaScript's ToPrimitive does.
    private static func primitive(_ value: FlagValue) -> FlagValue {
        switch value {
        case .list, .structure: .string(string(value))
        default: value
        }
    }
}
