/// Text from files, names, reasons, clients and the environment, made safe to show to people
/// and to write to logs: every control character is written visibly, as `ls -b` and systemd do,
/// so a hostile name cannot set a terminal's title, clear the screen, move the cursor, or forge a
/// line in a log. Used by capctl's output, a service's replies to its clients and the audit trail.
package enum VisibleText {
    /// `text` with C0 and C1 controls, DEL, and the bidirectional overrides that reorder what a
    /// terminal shows (U+202A-U+202E, U+2066-U+2069), written as `\n`, `\t`, `\r`, `\xHH` or
    /// `\u{HHHH}`; with `quoting`, `"` and `\` are escaped too, for a quoted field.
    package static func escaped(_ text: String, quoting: Bool = false) -> String {
        guard text.unicodeScalars.contains(where: { needsEscape($0) || (quoting && ($0 == "\"" || $0 == "\\")) })
        else { return text }
        // Built as UTF-8 bytes: the audit trail escapes every decision's explanation (its line
        // breaks), and appending scalar by scalar to a String was most of that record's cost.
        var result: [UInt8] = []
        result.reserveCapacity(text.utf8.count + 32)
        func append(_ ascii: String) { result.append(contentsOf: ascii.utf8) }
        for scalar in text.unicodeScalars {
            if quoting, scalar == "\"" || scalar == "\\" {
                result.append(UInt8(ascii: "\\"))
                result.append(UInt8(scalar.value))
                continue
            }
            guard needsEscape(scalar) else {
                if scalar.isASCII {
                    result.append(UInt8(scalar.value))
                } else {
                    UTF8.encode(scalar) { result.append($0) }
                }
                continue
            }
            switch scalar {
            case "\n": append("\\n")
            case "\t": append("\\t")
            case "\r": append("\\r")
            case _ where scalar.value < 0x80:
                append("\\x" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16))
            default: append("\\u{" + String(scalar.value, radix: 16) + "}")
            }
        }
        return String(decoding: result, as: UTF8.self)
    }

    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0..<0x20, 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}
