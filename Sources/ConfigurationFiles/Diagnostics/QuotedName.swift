/// How an error names a key it did not expect. A key a person typed (`colour`, `new-export`) is
/// quoted, so the typo is plain to see; anything else (a line of /etc/shadow read as a YAML key,
/// a token from another program's environment) is described without its text, as it may be a
/// secret that only the file's owner should see.
package enum QuotedName {
    /// The longest key that is quoted.
    package static let maximumLength = 64

    /// `"key"`, or a description that holds none of the key's text.
    package static func key(_ key: String) -> String {
        isNameLike(key) ? "\"\(key)\"" : "a key of \(key.unicodeScalars.count) characters that is not a name"
    }

    /// Up to 64 ASCII letters, digits, `_`, `-` and `.`, starting with a letter or `_`.
    package static func isNameLike(_ key: String) -> Bool {
        let bytes = Array(key.utf8)
        guard let first = bytes.first, bytes.count <= maximumLength else { return false }
        func letter(_ byte: UInt8) -> Bool {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
        }
        return (letter(first) || first == UInt8(ascii: "_"))
            && bytes.allSatisfy { byte in
                letter(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                    || [UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: ".")].contains(byte)
            }
    }
}
