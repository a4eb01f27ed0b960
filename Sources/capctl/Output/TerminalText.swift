/// Text from files, names, reasons and the environment, made safe to print for people: every
/// control character is written visibly, as `ls -b` and systemd do, so a hostile file name, key
/// or reason cannot set the terminal's title, clear the screen, move the cursor, or forge a line
/// such as "ok: 1 file(s) checked" in a CI log. JSON output escapes on its own and is not passed here.
enum TerminalText {
    /// `text` with C0 and C1 controls, DEL, and the bidirectional overrides that reorder what a
    /// terminal shows (U+202A-U+202E, U+2066-U+2069), written as `\n`, `\t`, `\r`, `\xHH` or `\u{HHHH}`.
    static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            guard needsEscape(scalar) else {
                result.unicodeScalars.append(scalar)
                continue
            }
            switch scalar {
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case "\r": result += "\\r"
            case _ where scalar.value < 0x80:
                result += "\\x" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
            default: result += "\\u{" + String(scalar.value, radix: 16) + "}"
            }
        }
        return result
    }

    /// Lines of text, each escaped, then joined: the only newlines printed are capctl's own.
    static func lines(_ lines: [String]) -> String {
        lines.map(escaped).joined(separator: "\n")
    }

    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0..<0x20, 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}
