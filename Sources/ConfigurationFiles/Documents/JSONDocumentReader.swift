/// Reads JSON (RFC 8259) into document nodes with line and column for every value, and
/// reports syntax errors at the character where they occur.
package struct JSONDocumentReader {
    private let bytes: [UInt8]
    private let file: String
    private var index = 0
    private var line = 1
    private var column = 1
    private var depth = 0
    private let exactIntegers: Bool

    /// Deep enough for any real flag file; deeper input is refused instead of overflowing the stack.
    private static let maximumDepth = 256
    /// Members looked through for a duplicate key before a dictionary is kept instead.
    private static let membersScanned = 16

    /// - Parameter exactIntegers: Refuse an integer beyond 2^53, which a `Double` would round
    ///   (``ExactIntegers``): for policies, whose numbers are counts, ids and limits. Flag files
    ///   leave it off: their numbers are JSON's doubles, as flagd reads them.
    package static func read(_ text: String, file: String, exactIntegers: Bool = false) throws(ConfigurationError)
        -> DocumentNode
    {
        var reader = JSONDocumentReader(bytes: Array(text.utf8), file: file, exactIntegers: exactIntegers)
        reader.skipWhitespace()
        let node = try reader.readValue()
        reader.skipWhitespace()
        guard reader.index == reader.bytes.count else {
            throw reader.error("found \(reader.describeCurrent()) after the end of the document")
        }
        return node
    }

    private init(bytes: [UInt8], file: String, exactIntegers: Bool) {
        self.bytes = bytes
        self.file = file
        self.exactIntegers = exactIntegers
        // A byte-order mark is not part of the document.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
    }

    private var location: FileLocation { FileLocation(file: file, line: line, column: column) }

    private func error(_ message: String, at location: FileLocation? = nil) -> ConfigurationError {
        ConfigurationError(message, at: location ?? self.location)
    }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    /// What stands at the current position, by its class: JSON's own punctuation is named, any
    /// other text is not quoted (a file that fails to parse may not be a configuration file at all,
    /// and its content may be a secret).
    private func describeCurrent() -> String {
        guard let byte = current else { return "end of file" }
        if Array("{}[],:\"".utf8).contains(byte) { return "'\(Character(UnicodeScalar(byte)))'" }
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"): return "a number"
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), 0x80...: return "a word"
        case 0..<0x20, 0x7F: return "a control character"
        default: return "a stray character"
        }
    }

    private mutating func advance() {
        let byte = bytes[index]
        index += 1
        if byte == UInt8(ascii: "\n") {
            line += 1
            column = 1
        } else if byte & 0xC0 != 0x80 {
            column += 1
        }
    }

    private mutating func skipWhitespace() {
        while let byte = current,
            byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\t")
                || byte == UInt8(ascii: "\r")
        {
            advance()
        }
    }

    private mutating func readValue() throws(ConfigurationError) -> DocumentNode {
        let start = location
        guard let byte = current else { throw error("expected a value, found end of file") }
        switch byte {
        case UInt8(ascii: "{"): return try readObject()
        case UInt8(ascii: "["): return try readArray()
        case UInt8(ascii: "\""): return DocumentNode(kind: .string(try readString()), location: start)
        case UInt8(ascii: "t"):
            try readLiteral("true")
            return DocumentNode(kind: .bool(true), location: start)
        case UInt8(ascii: "f"):
            try readLiteral("false")
            return DocumentNode(kind: .bool(false), location: start)
        case UInt8(ascii: "n"):
            try readLiteral("null")
            return DocumentNode(kind: .null, location: start)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return DocumentNode(kind: .number(try readNumber()), location: start)
        default:
            throw error("expected a value, found \(describeCurrent())")
        }
    }

    private mutating func enter() throws(ConfigurationError) {
        depth += 1
        guard depth <= Self.maximumDepth else { throw error("nested more than \(Self.maximumDepth) levels deep") }
    }

    private mutating func readObject() throws(ConfigurationError) -> DocumentNode {
        let start = location
        try enter()
        advance()
        var members: [DocumentNode.Member] = []
        // Duplicates are looked for among the members read; past a few, through a dictionary
        // (a varlink message's objects have a handful of members, read per call).
        var seen: [String: FileLocation] = [:]
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            advance()
            depth -= 1
            return DocumentNode(kind: .object(members), location: start)
        }
        while true {
            skipWhitespace()
            let keyLocation = location
            guard current == UInt8(ascii: "\"") else {
                throw error("expected a member name in double quotes, found \(describeCurrent())")
            }
            let key = try readString()
            let first: FileLocation?
            if members.count < Self.membersScanned {
                first = members.first { $0.key == key }?.keyLocation
            } else {
                if seen.isEmpty { for member in members { seen[member.key] = member.keyLocation } }
                first = seen[key]
                seen[key] = keyLocation
            }
            if let first {
                throw error(
                    "duplicate key \(QuotedName.key(key)) (first defined at line \(first.line), column \(first.column))",
                    at: keyLocation)
            }
            skipWhitespace()
            guard current == UInt8(ascii: ":") else {
                throw error("expected ':' after the member name, found \(describeCurrent())")
            }
            advance()
            skipWhitespace()
            let value = try readValue()
            members.append(DocumentNode.Member(key: key, keyLocation: keyLocation, value: value))
            skipWhitespace()
            if current == UInt8(ascii: ",") {
                advance()
                continue
            }
            guard current == UInt8(ascii: "}") else {
                throw error("expected ',' or '}' in object, found \(describeCurrent())")
            }
            advance()
            depth -= 1
            return DocumentNode(kind: .object(members), location: start)
        }
    }

    private mutating func readArray() throws(ConfigurationError) -> DocumentNode {
        let start = location
        try enter()
        advance()
        var elements: [DocumentNode] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            advance()
            depth -= 1
            return DocumentNode(kind: .array(elements), location: start)
        }
        while true {
            skipWhitespace()
            elements.append(try readValue())
            skipWhitespace()
            if current == UInt8(ascii: ",") {
                advance()
                continue
            }
            guard current == UInt8(ascii: "]") else {
                throw error("expected ',' or ']' in array, found \(describeCurrent())")
            }
            advance()
            depth -= 1
            return DocumentNode(kind: .array(elements), location: start)
        }
    }

    private mutating func readLiteral(_ word: String) throws(ConfigurationError) {
        let start = location
        for expected in word.utf8 {
            guard current == expected else { throw error("invalid literal; did you mean \(word)?", at: start) }
            advance()
        }
    }

    private mutating func readNumber() throws(ConfigurationError) -> Double {
        let start = location
        let first = index
        func digits(_ reader: inout JSONDocumentReader) -> Int {
            var count = 0
            while let byte = reader.current, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                reader.advance()
                count += 1
            }
            return count
        }
        if current == UInt8(ascii: "-") { advance() }
        let leadingZero = current == UInt8(ascii: "0")
        let digitsStart = index
        let integerDigits = digits(&self)
        let integerEnd = index
        guard integerDigits > 0 else { throw error("invalid number: expected a digit", at: start) }
        guard !(leadingZero && integerDigits > 1) else {
            throw error("invalid number: leading zeros are not allowed", at: start)
        }
        if current == UInt8(ascii: ".") {
            advance()
            guard digits(&self) > 0 else { throw error("invalid number: expected a digit after '.'", at: start) }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            advance()
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { advance() }
            guard digits(&self) > 0 else { throw error("invalid number: expected a digit in the exponent", at: start) }
        }
        let text = String(decoding: bytes[first..<index], as: UTF8.self)
        if exactIntegers, integerEnd == index, !ExactIntegers.fits(decimalDigits: bytes[digitsStart..<integerEnd]) {
            throw error(ExactIntegers.message(text), at: start)
        }
        guard let value = Double(text), value.isFinite else { throw error("number \(text) is out of range", at: start) }
        return value
    }

    private mutating func readString() throws(ConfigurationError) -> String {
        let start = location
        advance()
        // UTF-8 bytes, decoded once at the end (the text came from a String, and runs are cut at
        // ASCII bytes only); a string without escapes is one slice.
        var decoded: [UInt8] = []
        var escapes = false
        var run = index
        func flush(_ reader: JSONDocumentReader, upTo end: Int) {
            decoded.append(contentsOf: reader.bytes[run..<end])
        }
        while true {
            guard let byte = current else { throw error("unterminated string", at: start) }
            if byte == UInt8(ascii: "\"") {
                if escapes { flush(self, upTo: index) }
                let value =
                    escapes
                    ? String(decoding: decoded, as: UTF8.self) : String(decoding: bytes[run..<index], as: UTF8.self)
                advance()
                return value
            }
            if byte < 0x20 { throw error("control character in string; write it as an escape such as \\n") }
            if byte != UInt8(ascii: "\\") {
                advance()
                continue
            }
            flush(self, upTo: index)
            escapes = true
            let escapeLocation = location
            advance()
            guard let escaped = current else { throw error("unterminated string", at: start) }
            advance()
            if let byte = JSONString.escaped(escaped) {
                decoded.append(byte)
                run = index
                continue
            }
            switch escaped {
            case UInt8(ascii: "u"):
                var code = try readHex4(escapeLocation)
                if (0xD800..<0xDC00).contains(code) {
                    guard current == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u")
                    else {
                        throw error("unpaired surrogate in \\u escape", at: escapeLocation)
                    }
                    advance()
                    advance()
                    let low = try readHex4(escapeLocation)
                    guard (0xDC00..<0xE000).contains(low) else {
                        throw error("unpaired surrogate in \\u escape", at: escapeLocation)
                    }
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let scalar = Unicode.Scalar(code) else { throw error("invalid \\u escape", at: escapeLocation) }
                UTF8.encode(scalar) { decoded.append($0) }
            case 0x21...0x7E:
                throw error("invalid escape '\\\(Character(UnicodeScalar(escaped)))'", at: escapeLocation)
            default:
                throw error("invalid escape", at: escapeLocation)
            }
            run = index
        }
    }

    private mutating func readHex4(_ escapeLocation: FileLocation) throws(ConfigurationError) -> UInt32 {
        var code: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = current, let digit = byte.hexadecimalDigitValue else {
                throw error("\\u must be followed by four hexadecimal digits", at: escapeLocation)
            }
            code = code << 4 | digit
            advance()
        }
        return code
    }
}
