/// A string as JSON writes it: the one writer of JSON strings in the package (varlink messages,
/// flag values, capctl's output). Quote, backslash and every control character (DEL too, which a
/// terminal may act on) escaped; the rest of the UTF-8 as it is.
package enum JSONString {
    /// The byte a one-letter escape stands for when read (`\"`, `\\`, `\/`, `\b`, `\f`, `\n`,
    /// `\r`, `\t`: RFC 8259, section 7); nil for `u` (four hexadecimal digits follow) and for
    /// any other letter, which is no escape.
    package static func escaped(_ letter: UInt8) -> UInt8? {
        switch letter {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): letter
        case UInt8(ascii: "b"): 0x08
        case UInt8(ascii: "f"): 0x0C
        case UInt8(ascii: "n"): UInt8(ascii: "\n")
        case UInt8(ascii: "r"): UInt8(ascii: "\r")
        case UInt8(ascii: "t"): UInt8(ascii: "\t")
        default: nil
        }
    }

    /// Appends `string`, quoted, to `bytes`.
    package static func append(_ string: String, to bytes: inout [UInt8]) {
        var string = string
        // Its UTF-8 in place: the runs between escapes are copied whole (most strings, names,
        // reasons and ids, are one run), not byte by byte through the string's view.
        string.withUTF8 { utf8 in
            bytes.append(UInt8(ascii: "\""))
            var run = 0
            for index in utf8.indices where needsEscape(utf8[index]) {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[run..<index]))
                appendEscaped(utf8[index], to: &bytes)
                run = index + 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[run...]))
            bytes.append(UInt8(ascii: "\""))
        }
    }

    /// Appends the escape of `byte`, one that ``needsEscape(_:)``.
    private static func appendEscaped(_ byte: UInt8, to bytes: inout [UInt8]) {
        switch byte {
        case UInt8(ascii: "\""): bytes += #"\""#.utf8
        case UInt8(ascii: "\\"): bytes += #"\\"#.utf8
        case UInt8(ascii: "\n"): bytes += #"\n"#.utf8
        case UInt8(ascii: "\r"): bytes += #"\r"#.utf8
        case UInt8(ascii: "\t"): bytes += #"\t"#.utf8
        default:
            bytes += #"\u00"#.utf8
            bytes.append(hexDigits[Int(byte >> 4)])
            bytes.append(hexDigits[Int(byte & 0xF)])
        }
    }

    /// `string`, quoted.
    package static func quoted(_ string: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(string.utf8.count + 2)
        append(string, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Whether `byte` is written escaped: a quote, a backslash or a control character.
    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == 0x7F || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }
}
