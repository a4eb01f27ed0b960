import ConfigurationFiles

/// Reads one varlink message (a JSON text, RFC 8259) straight into a ``VarlinkValue``: what a
/// service and a client read for every call and reply. It accepts and refuses what
/// `JSONDocumentReader` does (the reader of files, which keeps each value's line and column for
/// its errors; a message needs neither, and building them was most of a reply's reading). As there,
/// an integer past 2^53 is refused, never rounded: a client whose JSON numbers are doubles could
/// not have meant it.
struct VarlinkMessageReader {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    private var depth = 0

    /// As deep as the file reader goes; deeper input is refused instead of overflowing the stack.
    private static let maximumDepth = 256
    /// 2^53: the largest integer magnitude every double holds exactly.
    private static let exactLimit: UInt64 = 1 << 53
    /// Members looked through for a duplicate key before a set of the keys is kept instead.
    private static let membersScanned = 16

    /// Why a message is not JSON.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The value `message` holds, which must be valid UTF-8 with nothing after the value but
    /// whitespace.
    static func read(_ message: [UInt8]) throws(Failure) -> VarlinkValue {
        let result = message.withUnsafeBufferPointer { bytes -> Result<VarlinkValue, Failure> in
            // Most messages are ASCII, valid as they are; only others are decoded to be sure.
            guard Self.isASCII(bytes) || String(validating: bytes, as: UTF8.self) != nil else {
                return .failure(Failure(description: "the message is not UTF-8"))
            }
            var reader = VarlinkMessageReader(bytes: bytes)
            do throws(Failure) {
                // A byte-order mark is not part of the text.
                if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { reader.index = 3 }
                reader.skipWhitespace()
                let value = try reader.readValue()
                reader.skipWhitespace()
                guard reader.index == bytes.count else { throw reader.failure("something after the end of the value") }
                return .success(value)
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    private static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var high: UInt8 = 0
        for byte in bytes { high |= byte }
        return high < 0x80
    }

    private init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    private func failure(_ message: String) -> Failure {
        Failure(description: "\(message) at byte \(index + 1)")
    }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\t"), UInt8(ascii: "\r"): index += 1
            default: return
            }
        }
    }

    private mutating func readValue() throws(Failure) -> VarlinkValue {
        guard let byte = current else { throw failure("expected a value, found the end") }
        switch byte {
        case UInt8(ascii: "{"): return try readObject()
        case UInt8(ascii: "["): return try readArray()
        case UInt8(ascii: "\""): return .string(try readString())
        case UInt8(ascii: "t"):
            try readLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try readLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try readLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try readNumber()
        default: throw failure("expected a value")
        }
    }

    private mutating func enter() throws(Failure) {
        depth += 1
        guard depth <= Self.maximumDepth else { throw failure("nested more than \(Self.maximumDepth) levels deep") }
        index += 1
    }

    private mutating func readObject() throws(Failure) -> VarlinkValue {
        try enter()
        var members: [(key: String, value: VarlinkValue)] = []
        var seen: Set<String> = []
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return .object(members)
        }
        // Room for the members a varlink object has (a handful): one allocation, not one per doubling.
        members.reserveCapacity(8)
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw failure("expected a member name in double quotes") }
            let key = try readString()
            let duplicate: Bool
            if members.count < Self.membersScanned {
                duplicate = members.contains { $0.key == key }
            } else {
                if seen.isEmpty { seen = Set(members.map(\.key)) }
                duplicate = !seen.insert(key).inserted
            }
            if duplicate { throw failure("duplicate key \(QuotedName.key(key))") }
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw failure("expected ':' after the member name") }
            index += 1
            skipWhitespace()
            members.append((key, try readValue()))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"):
                index += 1
                depth -= 1
                return .object(members)
            default: throw failure("expected ',' or '}' in an object")
            }
        }
    }

    private mutating func readArray() throws(Failure) -> VarlinkValue {
        try enter()
        var elements: [VarlinkValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return .array(elements)
        }
        elements.reserveCapacity(4)
        while true {
            skipWhitespace()
            elements.append(try readValue())
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"):
                index += 1
                depth -= 1
                return .array(elements)
            default: throw failure("expected ',' or ']' in an array")
            }
        }
    }

    private mutating func readLiteral(_ word: StaticString) throws(Failure) {
        let expected = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        guard bytes.count - index >= expected.count, bytes[index..<index + expected.count].elementsEqual(expected)
        else {
            throw failure("invalid literal")
        }
        index += expected.count
    }

    /// A number: an integer as Int64 (past 2^53, an error); one with a fraction or an exponent as
    /// a Double, or as Int64 when it is a whole number that fits, as the file reader's numbers
    /// become varlink values.
    private mutating func readNumber() throws(Failure) -> VarlinkValue {
        let first = index
        let negative = current == UInt8(ascii: "-")
        if negative { index += 1 }
        let digitsStart = index
        var magnitude: UInt64 = 0
        var overflows = false
        while let byte = current, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
            let (times10, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
            overflows = overflows || overflow1 || overflow2
            magnitude = sum
            index += 1
        }
        let integerDigits = index - digitsStart
        guard integerDigits > 0 else { throw failure("invalid number: expected a digit") }
        guard !(bytes[digitsStart] == UInt8(ascii: "0") && integerDigits > 1) else {
            throw failure("invalid number: leading zeros are not allowed")
        }
        var isInteger = true
        if current == UInt8(ascii: ".") {
            index += 1
            isInteger = false
            guard skipDigits() > 0 else { throw failure("invalid number: expected a digit after '.'") }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            isInteger = false
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard skipDigits() > 0 else { throw failure("invalid number: expected a digit in the exponent") }
        }
        if isInteger {
            guard !overflows, magnitude <= Self.exactLimit else {
                throw failure("an integer past 2^53 (9007199254740992), which a double would round")
            }
            return .int(negative ? -Int64(magnitude) : Int64(magnitude))
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[first..<index]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else { throw failure("number out of range") }
        if value.rounded(.towardZero) == value, let exact = Int64(exactly: value) { return .int(exact) }
        return .float(value)
    }

    private mutating func skipDigits() -> Int {
        let start = index
        while let byte = current, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { index += 1 }
        return index - start
    }

    private mutating func readString() throws(Failure) -> String {
        index += 1
        // A string without escapes is one slice of the (validated) message; with escapes, its
        // bytes are gathered and decoded once.
        var decoded: [UInt8] = []
        var escapes = false
        var run = index
        while true {
            guard let byte = current else { throw failure("unterminated string") }
            if byte == UInt8(ascii: "\"") {
                let value: String
                if escapes {
                    decoded.append(contentsOf: bytes[run..<index])
                    value = String(decoding: decoded, as: UTF8.self)
                } else {
                    value = String(decoding: UnsafeBufferPointer(rebasing: bytes[run..<index]), as: UTF8.self)
                }
                index += 1
                return value
            }
            if byte < 0x20 { throw failure("control character in a string") }
            if byte != UInt8(ascii: "\\") {
                index += 1
                continue
            }
            decoded.append(contentsOf: bytes[run..<index])
            escapes = true
            index += 1
            guard let escaped = current else { throw failure("unterminated string") }
            index += 1
            if let byte = JSONString.escaped(escaped) {
                decoded.append(byte)
            } else {
                guard escaped == UInt8(ascii: "u") else { throw failure("invalid escape") }
                var code = try readHex4()
                if (0xD800..<0xDC00).contains(code) {
                    guard current == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u")
                    else { throw failure("unpaired surrogate in a \\u escape") }
                    index += 2
                    let low = try readHex4()
                    guard (0xDC00..<0xE000).contains(low) else { throw failure("unpaired surrogate in a \\u escape") }
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let scalar = Unicode.Scalar(code) else { throw failure("invalid \\u escape") }
                UTF8.encode(scalar) { decoded.append($0) }
            }
            run = index
        }
    }

    private mutating func readHex4() throws(Failure) -> UInt32 {
        var code: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = current, let digit = byte.hexadecimalDigitValue else {
                throw failure("\\u must be followed by four hexadecimal digits")
            }
            code = code << 4 | digit
            index += 1
        }
        return code
    }
}
