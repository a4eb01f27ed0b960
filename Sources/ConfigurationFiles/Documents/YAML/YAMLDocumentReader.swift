/// Reads YAML into document nodes with line and column for every value.
///
/// Plain scalars are typed by the YAML 1.2 core schema, as flagd's Go reader does: only
/// `true`/`false` are Booleans, so a variant named `on` or `off` stays a string. Quoted and
/// block scalars are strings. Anchors, aliases and tags are refused (``YAMLParser``).
package enum YAMLDocumentReader {
    /// - Parameter exactIntegers: Refuse an integer beyond 2^53, which a `Double` would round
    ///   (``ExactIntegers``): for policies. Flag files leave it off, as flagd does.
    package static func read(_ text: String, file: String, exactIntegers: Bool = false) throws(ConfigurationError)
        -> DocumentNode
    {
        var parser = YAMLParser(text: text, file: file, exactIntegers: exactIntegers)
        return try parser.parseDocument()
    }

    /// As deep as the JSON reader goes: far beyond any real file, far below the stack's limit.
    static let maximumDepth = 256

    /// The YAML 1.2 core schema's reading of a plain scalar, or nil for a string; an integer
    /// beyond what a `Double` holds exactly is an error (``ExactIntegers``), and so is a float
    /// that is not finite (`.inf`, `.nan`, `1e400`), which no JSON value, policy or flag holds.
    static func coreSchema(_ text: String) -> Result<DocumentNode.Kind?, CoreSchemaError> {
        coreSchema(text, kind: coreSchemaKind(text))
    }

    /// ``coreSchema(_:)`` of `text`, whose kind was read already.
    private static func coreSchema(_ text: String, kind: DocumentNode.Kind?) -> Result<
        DocumentNode.Kind?, CoreSchemaError
    > {
        guard case .number(let value) = kind else { return .success(kind) }
        guard isIntegerForm(text) else { return value.isFinite ? .success(kind) : .failure(.notFinite) }
        var digits = Substring(text)
        var radix = 10
        if digits.hasPrefix("0x") || digits.hasPrefix("0o") {
            radix = digits.hasPrefix("0x") ? 16 : 8
            digits = digits.dropFirst(2)
        } else if digits.first == "+" || digits.first == "-" {
            digits = digits.dropFirst()
        }
        if radix == 10 {
            return ExactIntegers.fits(decimalDigits: digits.utf8) ? .success(kind) : .failure(.inexactInteger)
        }
        guard let value = UInt64(digits, radix: radix), value <= ExactIntegers.limit else {
            return .failure(.inexactInteger)
        }
        return .success(kind)
    }

    /// Why the core schema's reading of a scalar cannot be held.
    enum CoreSchemaError: Error {
        /// An integer beyond 2^53.
        case inexactInteger
        /// An infinite float, or not a number.
        case notFinite
    }

    /// An integer of the core schema (`[-+]?[0-9]+`, `0x...`, `0o...`) rather than a float, for
    /// a scalar the schema reads as a number.
    private static func isIntegerForm(_ text: String) -> Bool {
        if text.hasPrefix("0x") || text.hasPrefix("0o") { return true }
        let digits = text.first == "+" || text.first == "-" ? Substring(text).dropFirst() : Substring(text)
        return digits.utf8.allSatisfy { (0x30...0x39).contains($0) }
    }

    /// A plain mapping key as the core schema reads it: whether it can be held (``coreSchema(_:)``),
    /// and its identity for telling duplicates: keys it reads as the same null, Boolean, integer or
    /// float are the same key (`1` and `01`, `true` and `True`, `null` and `~`); nil for a string.
    static func key(_ key: String) -> (holdable: Result<DocumentNode.Kind?, CoreSchemaError>, identity: String?) {
        let kind = coreSchemaKind(key)
        let identity: String? =
            switch kind {
            case .null: "\u{0}null"
            case .bool(let value): "\u{0}bool:\(value)"
            case .number(let value) where value.isNaN: "\u{0}float:nan"
            case .number(let value): "\u{0}\(isIntegerForm(key) ? "int" : "float"):\(value)"
            default: nil
            }
        return (coreSchema(key, kind: kind), identity)
    }

    private static func coreSchemaKind(_ text: String) -> DocumentNode.Kind? {
        // Every null, Boolean, number and infinity below begins with one of these bytes (or is
        // empty); any other plain scalar is a string, without comparing it with each spelling.
        if let first = text.utf8.first {
            switch first {
            case UInt8(ascii: "~"), UInt8(ascii: "n"), UInt8(ascii: "N"), UInt8(ascii: "t"), UInt8(ascii: "T"),
                UInt8(ascii: "f"), UInt8(ascii: "F"), UInt8(ascii: "."), UInt8(ascii: "+"), UInt8(ascii: "-"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                break
            default:
                return nil
            }
        }
        switch text {
        case "", "~", "null", "Null", "NULL": return .null
        case "true", "True", "TRUE": return .bool(true)
        case "false", "False", "FALSE": return .bool(false)
        case ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF": return .number(.infinity)
        case "-.inf", "-.Inf", "-.INF": return .number(-.infinity)
        case ".nan", ".NaN", ".NAN": return .number(.nan)
        default: break
        }
        // `0x` and `0o` take digits only: `0x-1` and `0o+7` are strings (Int(radix:) would take the sign).
        for (prefix, radix, digits) in [("0x", 16, "0123456789abcdefABCDEF"), ("0o", 8, "01234567")]
        where text.hasPrefix(prefix) {
            let rest = text.dropFirst(2)
            guard !rest.isEmpty, rest.allSatisfy({ digits.contains($0) }) else { return nil }
            guard let value = UInt64(rest, radix: radix) else { return .number(Double.infinity) }
            return .number(Double(value))
        }
        guard let first = text.unicodeScalars.first, "+-.0123456789".unicodeScalars.contains(first),
            text.unicodeScalars.allSatisfy({ "+-.0123456789eE".unicodeScalars.contains($0) }),
            let value = Double(text)
        else { return nil }
        return .number(value)
    }
}
