/// Reads one YAML 1.2 document into document nodes: block and flow collections, plain, quoted
/// and block scalars, comments and the `%YAML` directive.
///
/// Anchors, aliases and tags are refused where they stand, so a "billion laughs" file costs
/// nothing, and no node's meaning depends on another's. Explicit keys (`? `) and keys that are
/// collections are refused too: a configuration key is a string. Indentation is spaces only; a
/// tab before a line's content is an error that says so.
///
/// Each node parser leaves the position just after the node's last character (or at the start
/// of the line after a block scalar); ``moveToNextLine()`` then checks that nothing but blanks
/// and a comment follow on that line.
struct YAMLParser {
    let bytes: [UInt8]
    let file: String
    var position: Int
    /// The offset at which each line starts (the first after a byte-order mark), for locations.
    private let lineStarts: [Int]
    /// The last location computed: columns count characters from there on, so a document on one
    /// long line costs time linear in its length, not in its length times its nodes.
    private let lastLocation = LocationMemo()

    /// Where a node stands: the parent's rules for what may follow on the same line.
    enum Context {
        case document
        case mappingValue
        case sequenceEntry
    }

    /// Whether an integer beyond 2^53 is an error rather than a rounded number.
    let exactIntegers: Bool

    init(text: String, file: String, exactIntegers: Bool = false) {
        bytes = Array(text.utf8)
        self.file = file
        self.exactIntegers = exactIntegers
        // A byte-order mark is not part of the document.
        position = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        var starts = [position]
        var index = position
        while index < bytes.count {
            if bytes[index] == .lineFeed || bytes[index] == .carriageReturn {
                if bytes[index] == .carriageReturn, index + 1 < bytes.count, bytes[index + 1] == .lineFeed {
                    index += 1
                }
                starts.append(index + 1)
            }
            index += 1
        }
        lineStarts = starts
    }

    // MARK: The document

    mutating func parseDocument() throws(ConfigurationError) -> DocumentNode {
        try refuseControlCharacters()
        var sawDirective = false
        var sawVersion = false
        while true {
            guard try moveToNextLine(sameLineAllowed: true) else {
                throw ConfigurationError("the document is empty", at: location(lineStarts[0]))
            }
            guard column(position) == 0, bytes[position] == .percent else { break }
            try readDirective(sawVersion: &sawVersion)
            sawDirective = true
        }
        // `...` before any document ends a stream of none.
        if !sawDirective, isDocumentMarker(.period, at: position) {
            throw error("the document is empty: '...' ends it before anything", at: position)
        }
        let root: DocumentNode
        if isDocumentMarker(.minus, at: position) {
            let marker = position
            position += 3
            skipBlanks()
            // A block mapping or sequence starts on a line of its own, never on the '---' line.
            if isImplicitKey(at: position) || isSequenceEntry(at: position) {
                throw error(
                    "a block mapping or sequence cannot start on the '---' line: begin it on the next line",
                    at: position)
            }
            root = try parseNode(after: marker + 3, parentIndent: -1, depth: 0, context: .document)
        } else if sawDirective {
            throw error("a directive must be followed by '---', the start of the document", at: position)
        } else {
            root = try parseBlock(indent: column(position), parentIndent: -1, depth: 0)
        }
        guard try moveToNextLine() else { return root }
        if isDocumentMarker(.period, at: position) {
            position += 3
            guard try moveToNextLine() else { return root }
            // After '...' anything but comments is a second document.
            throw error("a file holds one YAML document; a second one starts here", at: position)
        }
        if isDocumentMarker(.minus, at: position) || bytes[position] == .percent {
            throw error("a file holds one YAML document; a second one starts here", at: position)
        }
        throw error("this line's indentation matches no block above it", at: position)
    }

    /// `%YAML 1.2` is accepted once; another version is refused, 1.1 among them (it would read
    /// `yes`, `on` and `Y` as Booleans, and this reader would not: refused rather than read
    /// otherwise than its author meant). `%TAG` is refused (tags are), and other directives
    /// ignored, as the specification asks of reserved ones.
    private mutating func readDirective(sawVersion: inout Bool) throws(ConfigurationError) {
        let start = position
        var line = restOfLine()
        // A comment ends the directive where a blank precedes it.
        if let hash = line.firstIndex(where: { $0 == "#" }), hash > line.startIndex,
            line[line.index(before: hash)] == " " || line[line.index(before: hash)] == "\t"
        {
            line = String(line[..<hash])
        }
        let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
        switch words.first {
        case "%YAML":
            guard !sawVersion else { throw error("a second %YAML directive", at: start) }
            sawVersion = true
            guard words.count == 2, let version = Self.version(words[1]) else {
                throw error("a %YAML directive takes one version, such as 1.2, and nothing else", at: start)
            }
            guard version == (1, 2) else {
                throw error(
                    "%YAML \(version.major).\(version.minor) is refused: this reader reads YAML 1.2 only (YAML 1.1 "
                        + "reads yes, no, on and off as Booleans, 1.2 as strings); drop the directive and write 1.2",
                    at: start)
            }
        case "%TAG":
            throw error("YAML tags are not allowed: use plain values", at: start)
        default:
            break
        }
        position = endOfLine(from: position)
    }

    /// `MAJOR.MINOR`, decimal digits each.
    private static func version(_ text: Substring) -> (major: Int, minor: Int)? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCIIDigitCharacter) }),
            let major = Int(parts[0]), let minor = Int(parts[1])
        else { return nil }
        return (major, minor)
    }

    /// C0 and C1 control characters (but tab, line feed, carriage return and next line) are not
    /// printable YAML characters, anywhere in the stream.
    private func refuseControlCharacters() throws(ConfigurationError) {
        var index = position
        while index < bytes.count {
            let byte = bytes[index]
            if (byte < 0x20 && byte != .tab && byte != .lineFeed && byte != .carriageReturn) || byte == 0x7F {
                throw error("a control character (byte \(byte)) is not allowed in YAML", at: index)
            }
            if byte == 0xC2, index + 1 < bytes.count, (0x80...0x9F).contains(bytes[index + 1]), bytes[index + 1] != 0x85
            {
                throw error(
                    "a control character (U+00\(String(bytes[index + 1], radix: 16, uppercase: true))) is not allowed in YAML",
                    at: index)
            }
            index += 1
        }
    }

    // MARK: Block structure

    /// The node after an indicator (`---`, `- `, `key:`): on the rest of this line, or on the
    /// lines below, indented more than `parentIndent`; empty (null) when neither holds one.
    mutating func parseNode(after indicatorEnd: Int, parentIndent: Int, depth: Int, context: Context)
        throws(ConfigurationError) -> DocumentNode
    {
        let blanks = position
        skipBlanks()
        // A compact collection after '- ' is indented by the blanks before it: spaces only.
        if bytes[blanks..<position].contains(.tab), isSequenceEntry(at: position) || isImplicitKey(at: position) {
            throw error("a tab before a nested collection: YAML indents with spaces, never tabs", at: blanks)
        }
        if position < bytes.count, !isBreak(bytes[position]), bytes[position] != .hash {
            return try parseInline(parentIndent: parentIndent, depth: depth, context: context)
        }
        let empty = DocumentNode(kind: .null, location: location(indicatorEnd))
        let lineEnd = position
        guard try moveToNextLine(), !isDocumentMarker(.minus, at: position), !isDocumentMarker(.period, at: position)
        else {
            position = lineEnd
            return empty
        }
        let indent = column(position)
        if indent > parentIndent {
            return try parseBlock(indent: indent, parentIndent: parentIndent, depth: depth)
        }
        // A mapping's value may be a sequence at the key's own indentation.
        if indent == parentIndent, context == .mappingValue, isSequenceEntry(at: position) {
            return try parseSequence(indent: indent, depth: depth)
        }
        position = lineEnd
        return empty
    }

    /// A node that starts a line of its own at column `indent`.
    private mutating func parseBlock(indent: Int, parentIndent: Int, depth: Int) throws(ConfigurationError)
        -> DocumentNode
    {
        if isSequenceEntry(at: position) { return try parseSequence(indent: indent, depth: depth) }
        try refuseNodeProperties()
        if isImplicitKey(at: position) { return try parseMapping(indent: indent, depth: depth) }
        return try parseInline(parentIndent: parentIndent, depth: depth, context: .document)
    }

    /// A node that starts at the position, after an indicator on the same line or at a line's
    /// start: a compact collection (in a sequence entry), a flow collection or a scalar.
    private mutating func parseInline(parentIndent: Int, depth: Int, context: Context) throws(ConfigurationError)
        -> DocumentNode
    {
        try refuseNodeProperties()
        let start = position
        switch bytes[position] {
        case .verticalBar, .greaterThan:
            return try parseBlockScalar(parentIndent: parentIndent)
        case .openBracket, .openBrace:
            let node = try parseFlowCollection(depth: depth, minimumIndent: parentIndent + 1)
            try refuseKey(after: start)
            return node
        default:
            break
        }
        if isSequenceEntry(at: position) {
            guard context != .mappingValue else {
                throw error(
                    "a sequence cannot start on its key's line: put each '- ' entry on a line of its own", at: start)
            }
            return try parseSequence(indent: column(position), depth: depth)
        }
        if context != .mappingValue, isImplicitKey(at: position) {
            return try parseMapping(indent: column(position), depth: depth)
        }
        let node: DocumentNode
        if bytes[position] == .singleQuote || bytes[position] == .doubleQuote {
            node = DocumentNode(
                kind: .string(try parseQuotedScalar(minimumIndent: parentIndent + 1)), location: location(start))
        } else {
            let text = try parsePlainScalar(parentIndent: parentIndent, flow: false)
            node = DocumentNode(kind: try typed(text, at: start), location: location(start))
        }
        try refuseKey(after: start)
        return node
    }

    /// A plain scalar's node kind by the core schema; an integer too large to hold exactly (with
    /// `exactIntegers`), and a float that is not finite, are errors: never read as text.
    func typed(_ text: String, at offset: Int) throws(ConfigurationError) -> DocumentNode.Kind {
        switch YAMLDocumentReader.coreSchema(text) {
        case .success(let kind): return kind ?? .string(text)
        case .failure(.inexactInteger):
            guard exactIntegers else {
                guard let value = Double(text), value.isFinite else { throw notFinite(text, at: offset) }
                return .number(value)
            }
            throw error(ExactIntegers.message(text), at: offset)
        case .failure(.notFinite):
            throw notFinite(text, at: offset)
        }
    }

    func notFinite(_ text: String, at offset: Int) -> ConfigurationError {
        error(
            "'\(text)' is a number YAML reads as infinite or not a number, which a policy or flag cannot hold (JSON has no such numbers): quote it to mean the text",
            at: offset)
    }

    /// `key: value` where a value was expected: a mapping cannot start inside a mapping's value
    /// line, and a collection cannot be a key.
    private mutating func refuseKey(after start: Int) throws(ConfigurationError) {
        let end = position
        skipBlanks()
        if position < bytes.count, bytes[position] == .colon, isBlankOrEnd(at: position + 1) {
            throw error(
                isFlowStart(bytes[start])
                    ? "a collection cannot be a mapping key (complex keys are not supported): keys are strings"
                    : "a value cannot hold 'key: value' on its key's line (a mapping goes on the lines below, indented)",
                at: position)
        }
        position = end
    }

    private mutating func parseSequence(indent: Int, depth: Int) throws(ConfigurationError) -> DocumentNode {
        let start = position
        try checkDepth(depth, at: start)
        var elements: [DocumentNode] = []
        while true {
            let dash = position
            position += 1
            elements.append(
                try parseNode(after: dash + 1, parentIndent: indent, depth: depth + 1, context: .sequenceEntry))
            guard try moveToNextLine(), !isDocumentMarker(.minus, at: position),
                !isDocumentMarker(.period, at: position)
            else { break }
            let next = column(position)
            if next > indent { throw indentationError(next: next, indent: indent, lastValue: elements.last) }
            guard next == indent, isSequenceEntry(at: position) else { break }
        }
        position = min(position, bytes.count)
        rewindToLineStart()
        return DocumentNode(kind: .array(elements), location: location(start))
    }

    private mutating func parseMapping(indent: Int, depth: Int) throws(ConfigurationError) -> DocumentNode {
        let start = position
        try checkDepth(depth, at: start)
        var members: [DocumentNode.Member] = []
        var seen: [String: Int] = [:]
        while true {
            let keyStart = position
            try refuseNodeProperties()
            let key: String
            let plainKey = bytes[position] != .singleQuote && bytes[position] != .doubleQuote
            if !plainKey {
                key = try parseQuotedScalar(minimumIndent: indent + 1)
            } else {
                key = try parsePlainScalar(parentIndent: Int.max, flow: false)
            }
            skipBlanks()
            // isImplicitKey saw the colon.
            let colon = position
            position += 1
            try checkDuplicate(key, plain: plainKey, at: keyStart, seen: &seen)
            let value = try parseNode(after: colon + 1, parentIndent: indent, depth: depth + 1, context: .mappingValue)
            members.append(DocumentNode.Member(key: key, keyLocation: location(keyStart), value: value))
            guard try moveToNextLine(), !isDocumentMarker(.minus, at: position),
                !isDocumentMarker(.period, at: position)
            else { break }
            let next = column(position)
            if next > indent { throw indentationError(next: next, indent: indent, lastValue: value) }
            guard next == indent else { break }
            if isSequenceEntry(at: position) {
                throw error("a sequence entry where a mapping key was expected", at: position)
            }
            try refuseNodeProperties()
            guard isImplicitKey(at: position) else {
                throw error("expected 'key: value' here, as on the mapping's other lines", at: position)
            }
        }
        rewindToLineStart()
        return DocumentNode(kind: .object(members), location: location(start))
    }

    /// A line indented more than the block it follows: between that block's column and the
    /// column of the collection that ended above it, or deeper than a value that cannot continue.
    private func indentationError(next: Int, indent: Int, lastValue: DocumentNode?) -> ConfigurationError {
        if let lastValue, lastValue.isCollection, lastValue.location.column - 1 > next {
            return error(
                "this line's indentation (column \(next + 1)) matches no block above it: "
                    + "the blocks there start at columns \(indent + 1) and \(lastValue.location.column)", at: position)
        }
        return error("this line is indented more than the block it belongs to (column \(indent + 1))", at: position)
    }

    /// A key seen before in the same mapping is an error at the second, naming the first, as the
    /// JSON reader says it. A plain key is also the same as one the core schema reads as the same
    /// value (`1` and `01`, `true` and `True`, `null` and `~`), as YAML's node equality has it.
    func checkDuplicate(_ key: String, plain: Bool, at offset: Int, seen: inout [String: Int])
        throws(ConfigurationError)
    {
        let read = plain ? YAMLDocumentReader.key(key) : nil
        if case .failure(.notFinite)? = read?.holdable { throw notFinite(key, at: offset) }
        let identity = read?.identity
        if let first = seen[key] ?? identity.flatMap({ seen[$0] }) {
            let firstLocation = location(first)
            let same = seen[key] == nil ? " (the same value to YAML's core schema)" : ""
            throw error(
                "duplicate key \(QuotedName.key(key))\(same) (first defined at line \(firstLocation.line), column \(firstLocation.column))",
                at: offset)
        }
        seen[key] = offset
        if let identity { seen[identity] = offset }
    }

    /// Anchors (`&`), aliases (`*`) and tags (`!`) are refused where they stand.
    func refuseNodeProperties() throws(ConfigurationError) {
        guard position < bytes.count else { return }
        switch bytes[position] {
        case .ampersand: throw error("YAML anchors are not allowed", at: position)
        case .asterisk: throw error("YAML aliases are not allowed", at: position)
        case .exclamation: throw error("YAML tags are not allowed: use plain values", at: position)
        case .question where isBlankOrEnd(at: position + 1):
            throw error("explicit keys ('? ') are not supported: write 'key: value'", at: position)
        case .colon where isBlankOrEnd(at: position + 1):
            throw error(
                "a mapping key is missing before ':' (an empty key is not supported: keys are strings)", at: position)
        case .atSign, .backtick:
            throw error(
                "'\(Character(Unicode.Scalar(bytes[position])))' is reserved in YAML and cannot start a value; quote the value",
                at: position)
        default: return
        }
    }

    func checkDepth(_ depth: Int, at offset: Int) throws(ConfigurationError) {
        guard depth < YAMLDocumentReader.maximumDepth else {
            throw error("nested more than \(YAMLDocumentReader.maximumDepth) levels deep", at: offset)
        }
    }

    // MARK: Lines

    /// Skips blanks, a comment and the line break, then blank and comment lines, and stops at the
    /// next line's content. Returns false at the end of the input. Content on the current line
    /// is an error unless `sameLineAllowed` (or the position is at a line's start).
    @discardableResult
    mutating func moveToNextLine(sameLineAllowed: Bool = false) throws(ConfigurationError) -> Bool {
        var atLineStart = sameLineAllowed || isLineStart(position)
        while true {
            skipSpaces()
            let indentEnd = position
            skipBlanks()
            guard position < bytes.count else { return false }
            let byte = bytes[position]
            if byte == .hash, isLineStart(position) || isBlank(bytes[position - 1]) {
                position = endOfLine(from: position)
            } else if !isBreak(byte) {
                if atLineStart {
                    if position != indentEnd {
                        throw error(
                            "a tab before a line's content: this reader refuses tabs where indentation stands (their width "
                                + "is ambiguous); indent with spaces", at: indentEnd)
                    }
                    return true
                }
                throw error("unexpected text after the value", at: position)
            }
            guard position < bytes.count else { return false }
            consumeBreak()
            atLineStart = true
        }
    }

    /// After a collection: back to the start of the line that ended it, so the parent's
    /// ``moveToNextLine()`` sees that line's content as a new line.
    private mutating func rewindToLineStart() {
        if position < bytes.count { position = lineStart(of: position) }
    }

    func isLineStart(_ offset: Int) -> Bool {
        offset == lineStarts[0] || (offset > 0 && isBreak(bytes[offset - 1]))
    }

    /// `- ` (or `-` at the end of a line): a block sequence entry.
    func isSequenceEntry(at offset: Int) -> Bool {
        offset < bytes.count && bytes[offset] == .minus && isBlankOrEnd(at: offset + 1)
    }

    /// `---` or `...` at a line's start, followed by a blank or the end of the line.
    func isDocumentMarker(_ byte: UInt8, at offset: Int) -> Bool {
        offset + 3 <= bytes.count && isLineStart(offset) && bytes[offset] == byte && bytes[offset + 1] == byte
            && bytes[offset + 2] == byte && isBlankOrEnd(at: offset + 3)
    }

    /// Whether this line holds `key:` at the position: a quoted or plain key on one line,
    /// followed by a colon and a blank.
    func isImplicitKey(at offset: Int) -> Bool {
        var index = offset
        guard index < bytes.count else { return false }
        switch bytes[index] {
        case .singleQuote, .doubleQuote:
            let quote = bytes[index]
            index += 1
            while index < bytes.count, !isBreak(bytes[index]) {
                if bytes[index] == quote {
                    if quote == .singleQuote, index + 1 < bytes.count, bytes[index + 1] == .singleQuote {
                        index += 2
                        continue
                    }
                    break
                }
                index += quote == .doubleQuote && bytes[index] == .backslash ? 2 : 1
            }
            guard index < bytes.count, bytes[index] == quote else { return false }
            index += 1
            while index < bytes.count, isBlank(bytes[index]) { index += 1 }
            return index < bytes.count && bytes[index] == .colon && isBlankOrEnd(at: index + 1)
        case .openBracket, .openBrace, .verticalBar, .greaterThan, .hash:
            return false
        default:
            while index < bytes.count, !isBreak(bytes[index]) {
                if bytes[index] == .colon, isBlankOrEnd(at: index + 1) { return index > offset }
                if bytes[index] == .hash, index > offset, isBlank(bytes[index - 1]) { return false }
                index += 1
            }
            return false
        }
    }

    // MARK: Bytes

    func isBreak(_ byte: UInt8) -> Bool { byte == .lineFeed || byte == .carriageReturn }
    func isBlank(_ byte: UInt8) -> Bool { byte == .space || byte == .tab }

    func isBlankOrEnd(at offset: Int) -> Bool {
        offset >= bytes.count || isBlank(bytes[offset]) || isBreak(bytes[offset])
    }

    func isFlowStart(_ byte: UInt8) -> Bool { byte == .openBracket || byte == .openBrace }

    func isFlowIndicator(_ byte: UInt8) -> Bool {
        byte == .comma || byte == .openBracket || byte == .closeBracket || byte == .openBrace || byte == .closeBrace
    }

    mutating func skipSpaces() {
        while position < bytes.count, bytes[position] == .space { position += 1 }
    }

    mutating func skipBlanks() {
        while position < bytes.count, isBlank(bytes[position]) { position += 1 }
    }

    mutating func consumeBreak() {
        guard position < bytes.count else { return }
        if bytes[position] == .carriageReturn, position + 1 < bytes.count, bytes[position + 1] == .lineFeed {
            position += 1
        }
        position += 1
    }

    func endOfLine(from offset: Int) -> Int {
        var index = offset
        while index < bytes.count, !isBreak(bytes[index]) { index += 1 }
        return index
    }

    func restOfLine() -> String {
        String(decoding: bytes[position..<endOfLine(from: position)], as: UTF8.self)
    }

    /// The index (from 0) of the line holding an offset.
    private func lineIndex(of offset: Int) -> Int {
        var low = 0
        var high = lineStarts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if lineStarts[middle] <= offset { low = middle } else { high = middle - 1 }
        }
        return low
    }

    func lineStart(of offset: Int) -> Int { lineStarts[lineIndex(of: offset)] }

    /// The column of an offset, from 0, in bytes: indentation is spaces, so this is its width.
    func column(_ offset: Int) -> Int { offset - lineStart(of: offset) }

    /// The 1-based line and column (in characters) of an offset.
    func location(_ offset: Int) -> FileLocation {
        let line = lineIndex(of: offset)
        let target = min(offset, bytes.count)
        var column = 1
        var index = lineStarts[line]
        if lastLocation.line == line {
            if lastLocation.offset <= target {
                column = lastLocation.column
                index = lastLocation.offset
            } else if lastLocation.offset - target < target - index {
                // Back from the last one: a collection's own location, asked after its entries'.
                column = lastLocation.column
                index = lastLocation.offset
                while index > target {
                    index -= 1
                    if bytes[index] & 0xC0 != 0x80 { column -= 1 }
                }
            }
        }
        while index < target {
            if bytes[index] & 0xC0 != 0x80 { column += 1 }
            index += 1
        }
        lastLocation.line = line
        lastLocation.offset = index
        lastLocation.column = column
        return FileLocation(file: file, line: line + 1, column: column)
    }

    func error(_ message: String, at offset: Int) -> ConfigurationError {
        ConfigurationError(message, at: location(offset))
    }
}

/// Where ``YAMLParser/location(_:)`` last counted to; the parser is used by one thread.
private final class LocationMemo {
    var line = -1
    var offset = 0
    var column = 1
}

extension Character {
    fileprivate var isASCIIDigitCharacter: Bool { ("0"..."9").contains(self) }
}

extension UInt8 {
    static let tab = UInt8(ascii: "\t")
    static let lineFeed = UInt8(ascii: "\n")
    static let carriageReturn = UInt8(ascii: "\r")
    static let space = UInt8(ascii: " ")
    static let hash = UInt8(ascii: "#")
    static let percent = UInt8(ascii: "%")
    static let minus = UInt8(ascii: "-")
    static let period = UInt8(ascii: ".")
    static let colon = UInt8(ascii: ":")
    static let comma = UInt8(ascii: ",")
    static let question = UInt8(ascii: "?")
    static let ampersand = UInt8(ascii: "&")
    static let asterisk = UInt8(ascii: "*")
    static let exclamation = UInt8(ascii: "!")
    static let atSign = UInt8(ascii: "@")
    static let backtick = UInt8(ascii: "`")
    static let verticalBar = UInt8(ascii: "|")
    static let greaterThan = UInt8(ascii: ">")
    static let openBracket = UInt8(ascii: "[")
    static let closeBracket = UInt8(ascii: "]")
    static let openBrace = UInt8(ascii: "{")
    static let closeBrace = UInt8(ascii: "}")
    static let singleQuote = UInt8(ascii: "'")
    static let doubleQuote = UInt8(ascii: "\"")
    static let backslash = UInt8(ascii: "\\")
}
