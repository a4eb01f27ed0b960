/// Swift names for flag keys, gate names and capability names, following the identifier grammar
/// of The Swift Programming Language ("Lexical Structure"), so any key either becomes a name that
/// compiles or is refused with its position.
enum SwiftIdentifier {
    /// `new-export` -> `newExport`; a leading digit gets an underscore; every name is written in
    /// backticks when it is a keyword. Nil when the text has nothing a name can be made of (`___`).
    static func make(from text: String) -> String? {
        let words = text.unicodeScalars.split(whereSeparator: { !isCharacter($0) || $0 == "_" }).map {
            String(String.UnicodeScalarView($0))
        }
        guard !words.isEmpty else { return nil }
        var result = words.enumerated().map { index, word in
            index == 0 ? word : word.prefix(1).uppercased() + word.dropFirst()
        }.joined()
        // A word's first character may have become one Swift does not allow at the start.
        if let first = result.unicodeScalars.first, !isHead(first) { result = "_" + result }
        return keywords.contains(result) ? "`\(result)`" : result
    }

    /// identifier-head.
    static func isHead(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        switch value {
        case 0x41...0x5A, 0x61...0x7A, 0x5F: return true
        case 0xA8, 0xAA, 0xAD, 0xAF, 0xB2...0xB5, 0xB7...0xBA, 0xBC...0xBE, 0xC0...0xD6, 0xD8...0xF6, 0xF8...0xFF:
            return true
        case 0x100...0x2FF, 0x370...0x167F, 0x1681...0x180D, 0x180F...0x1DBF, 0x1E00...0x1FFF: return true
        case 0x200B...0x200D, 0x202A...0x202E, 0x203F...0x2040, 0x2054, 0x2060...0x206F: return true
        case 0x2070...0x20CF, 0x2100...0x218F, 0x2460...0x24FF, 0x2776...0x2793: return true
        case 0x2C00...0x2DFF, 0x2E80...0x2FFF: return true
        case 0x3004...0x3007, 0x3021...0x302F, 0x3031...0x303F, 0x3040...0xD7FF: return true
        case 0xF900...0xFD3D, 0xFD40...0xFDCF, 0xFDF0...0xFE1F, 0xFE30...0xFE44, 0xFE47...0xFFFD: return true
        case 0x10000...0xEFFFD: return value & 0xFFFE != 0xFFFE
        default: return false
        }
    }

    /// identifier-character: a head, a digit or a combining mark.
    static func isCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x30...0x39, 0x300...0x36F, 0x1DC0...0x1DFF, 0x20D0...0x20FF, 0xFE20...0xFE2F: true
        default: isHead(scalar)
        }
    }

    /// Every reserved word a declaration name must escape (keywords used in declarations,
    /// statements, expressions and types, and those reserved in particular contexts that a
    /// `static let` cannot use bare).
    static let keywords: Set<String> = [
        "associatedtype", "borrowing", "class", "consuming", "deinit", "enum", "extension", "fileprivate", "func",
        "import", "init", "inout", "internal", "let", "nonisolated", "open", "operator", "precedencegroup",
        "private", "protocol", "public", "rethrows", "static", "struct", "subscript", "typealias", "var", "break",
        "case", "catch", "continue", "default", "defer", "do", "else", "fallthrough", "for", "guard", "if", "in",
        "repeat", "return", "throw", "switch", "where", "while", "Any", "as", "await", "false", "is", "nil", "self",
        "Self", "super", "throws", "true", "try", "Type", "Protocol", "any", "some", "_",
    ]
}
