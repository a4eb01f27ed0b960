/// Reads YAML into document nodes with line and column for every value.
///
/// Plain scalars are typed by the YAML 1.2 core schema, as flagd's Go reader does: only
/// `true`/`false` are Booleans, so a variant named `on` or `off` stays a string. Quoted and
/// block scalars are strings. Anchors, aliases and tags are refused (``YAMLParser``).
package enum YAMLDocumentReader {
    package static func read(_ text: String, file: String) throws(ConfigurationError) -> DocumentNode {
        var parser = YAMLParser(text: text, file: file)
        return try parser.parseDocument()
    }

    /// As deep as the JSON reader goes: far beyond any real file, far below the stack's limit.
    static let maximumDepth = 256

    /// The YAML 1.2 core schema's reading of a plain scalar, or nil for a string.
    static func coreSchema(_ text: String) -> DocumentNode.Kind? {
        switch text {
        case "", "~", "null", "Null", "NULL": return .null
        case "true", "True", "TRUE": return .bool(true)
        case "false", "False", "FALSE": return .bool(false)
        case ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF", ".nan", ".NaN", ".NAN":
            return nil  // not representable in JSON; flagd's JSON model has no such numbers
        default: break
        }
        if text.hasPrefix("0x"), let value = Int(text.dropFirst(2), radix: 16) { return .number(Double(value)) }
        if text.hasPrefix("0o"), let value = Int(text.dropFirst(2), radix: 8) { return .number(Double(value)) }
        guard let first = text.unicodeScalars.first, "+-.0123456789".unicodeScalars.contains(first),
            text.unicodeScalars.allSatisfy({ "+-.0123456789eE".unicodeScalars.contains($0) }),
            let value = Double(text), value.isFinite
        else { return nil }
        return .number(value)
    }
}
