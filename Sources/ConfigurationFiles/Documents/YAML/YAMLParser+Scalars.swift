/// Scalars (plain, single- and double-quoted, literal and folded) and flow collections, with the
/// line folding of YAML 1.2 chapters 6 to 8.
extension YAMLParser {
    // MARK: Plain scalars

    /// A plain scalar: its first line ends at `: `, ` #` (and in flow context at `,[]{}`);
    /// it continues on lines indented more than `parentIndent`, a single line break folding to a
    /// space and each empty line to a line feed.
    mutating func parsePlainScalar(parentIndent: Int, flow: Bool) throws(ConfigurationError) -> String {
        let first = bytes[position]
        if first == .comma || first == .closeBracket || first == .closeBrace || first == .percent || first == .hash {
            throw error(
                "'\(Character(Unicode.Scalar(first)))' cannot start a plain value; quote the value", at: position)
        }
        // '-', '?' and ':' start a plain value only when a character that could continue it follows.
        if first == .minus || first == .question || first == .colon {
            let next = position + 1
            if isBlankOrEnd(at: next) || (flow && isFlowIndicator(bytes[next])) {
                throw error(
                    "'\(Character(Unicode.Scalar(first)))' alone is not a plain value here; quote the value",
                    at: position)
            }
        }
        var text: [UInt8] = []
        let end = scanPlainLine(from: position, flow: flow)
        text += bytes[position..<end]
        position = end
        while true {
            var probe = position
            while probe < bytes.count, isBlank(bytes[probe]) { probe += 1 }
            guard probe < bytes.count, isBreak(bytes[probe]) else { return String(decoding: text, as: UTF8.self) }
            var emptyLines = 0
            var contentStart: Int?
            while probe < bytes.count, isBreak(bytes[probe]) {
                probe +=
                    bytes[probe] == .carriageReturn && probe + 1 < bytes.count && bytes[probe + 1] == .lineFeed ? 2 : 1
                let lineStart = probe
                while probe < bytes.count, bytes[probe] == .space { probe += 1 }
                let indent = probe - lineStart
                while probe < bytes.count, isBlank(bytes[probe]) { probe += 1 }
                guard probe < bytes.count else { break }
                if isBreak(bytes[probe]) {
                    emptyLines += 1
                    continue
                }
                // Less indented: the value ends (in a flow collection, whose own check then refuses the line).
                if indent <= parentIndent || isDocumentMarker(.minus, at: lineStart)
                    || isDocumentMarker(.period, at: lineStart)
                {
                    break
                }
                contentStart = probe
            }
            guard let start = contentStart else { return String(decoding: text, as: UTF8.self) }
            let byte = bytes[start]
            if byte == .hash || (flow && isFlowIndicator(byte)) || (byte == .colon && isBlankOrEnd(at: start + 1)) {
                return String(decoding: text, as: UTF8.self)
            }
            let lineEnd = scanPlainLine(from: start, flow: flow)
            if emptyLines == 0 {
                text.append(.space)
            } else {
                text += [UInt8](repeating: .lineFeed, count: emptyLines)
            }
            text += bytes[start..<lineEnd]
            position = lineEnd
            if !flow, lineEnd < bytes.count, bytes[lineEnd] == .colon {
                throw error(
                    "a value cannot continue with 'key: value' on a more indented line (indent the key as the others)",
                    at: lineEnd)
            }
        }
    }

    /// The end of a plain scalar's text on this line, trailing blanks left out.
    private func scanPlainLine(from start: Int, flow: Bool) -> Int {
        var index = start
        var end = start
        while index < bytes.count {
            let byte = bytes[index]
            if isBreak(byte) { break }
            if byte == .colon,
                isBlankOrEnd(at: index + 1) || (flow && index + 1 < bytes.count && isFlowIndicator(bytes[index + 1]))
            {
                break
            }
            if byte == .hash, index > start, isBlank(bytes[index - 1]) { break }
            if flow, isFlowIndicator(byte) { break }
            index += 1
            if !isBlank(byte) { end = index }
        }
        return end
    }

    // MARK: Quoted scalars

    /// A single- or double-quoted scalar, escapes decoded and line breaks folded. Its continuation
    /// lines are indented at least `minimumIndent` spaces (more than the block it stands in).
    mutating func parseQuotedScalar(minimumIndent: Int) throws(ConfigurationError) -> String {
        let start = position
        let quote = bytes[position]
        position += 1
        var text: [UInt8] = []
        // Blanks at the end of `text` that came from the file (not from escapes): trimmed at a fold.
        var rawTrailingBlanks = 0
        while true {
            guard position < bytes.count else { throw error("a quoted value is not closed", at: start) }
            let byte = bytes[position]
            if byte == quote {
                if quote == .singleQuote, position + 1 < bytes.count, bytes[position + 1] == .singleQuote {
                    text.append(.singleQuote)
                    rawTrailingBlanks = 0
                    position += 2
                    continue
                }
                position += 1
                return String(decoding: text, as: UTF8.self)
            }
            if quote == .doubleQuote, byte == .backslash {
                if position + 1 < bytes.count, isBreak(bytes[position + 1]) {
                    // An escaped line break joins the lines without a space.
                    position += 1
                    text += [UInt8](
                        repeating: .lineFeed, count: try foldLines(quotedFrom: start, minimumIndent: minimumIndent))
                } else {
                    try decodeEscape(into: &text)
                }
                rawTrailingBlanks = 0
                continue
            }
            if isBreak(byte) {
                text.removeLast(rawTrailingBlanks)
                rawTrailingBlanks = 0
                let emptyLines = try foldLines(quotedFrom: start, minimumIndent: minimumIndent)
                if emptyLines == 0 {
                    text.append(.space)
                } else {
                    text += [UInt8](repeating: .lineFeed, count: emptyLines)
                }
                continue
            }
            text.append(byte)
            rawTrailingBlanks = isBlank(byte) ? rawTrailingBlanks + 1 : 0
            position += 1
        }
    }

    /// Moves over a line break inside a quoted scalar, the empty lines after it and the next
    /// line's leading blanks; returns the number of empty lines.
    private mutating func foldLines(quotedFrom start: Int, minimumIndent: Int) throws(ConfigurationError) -> Int {
        var emptyLines = 0
        consumeBreak()
        while true {
            if isDocumentMarker(.minus, at: position) || isDocumentMarker(.period, at: position) {
                throw error("a quoted value is not closed before the document marker", at: start)
            }
            let lineStart = position
            skipSpaces()
            let indent = position - lineStart
            skipBlanks()
            guard position < bytes.count else { throw error("a quoted value is not closed", at: start) }
            if !isBreak(bytes[position]), indent < minimumIndent {
                throw error(
                    "a quoted value is not closed before line \(location(lineStart).line), which is indented less than "
                        + "\(minimumIndent) space(s) (a quoted value's lines are indented more than its block)",
                    at: start)
            }
            guard isBreak(bytes[position]) else { return emptyLines }
            emptyLines += 1
            consumeBreak()
        }
    }

    /// One escape sequence of a double-quoted scalar (YAML 1.2 section 5.7), at a backslash.
    private mutating func decodeEscape(into text: inout [UInt8]) throws(ConfigurationError) {
        let start = position
        guard position + 1 < bytes.count else { throw error("a quoted value is not closed", at: start) }
        let code = bytes[position + 1]
        position += 2
        let scalar: UInt32
        switch code {
        case UInt8(ascii: "0"): scalar = 0
        case UInt8(ascii: "a"): scalar = 7
        case UInt8(ascii: "b"): scalar = 8
        case UInt8(ascii: "t"), .tab: scalar = 9
        case UInt8(ascii: "n"): scalar = 10
        case UInt8(ascii: "v"): scalar = 11
        case UInt8(ascii: "f"): scalar = 12
        case UInt8(ascii: "r"): scalar = 13
        case UInt8(ascii: "e"): scalar = 27
        case .space, .doubleQuote, UInt8(ascii: "/"), .backslash: scalar = UInt32(code)
        case UInt8(ascii: "N"): scalar = 0x85
        case UInt8(ascii: "_"): scalar = 0xA0
        case UInt8(ascii: "L"): scalar = 0x2028
        case UInt8(ascii: "P"): scalar = 0x2029
        case UInt8(ascii: "x"): scalar = try hexadecimal(digits: 2, escapeAt: start)
        case UInt8(ascii: "u"): scalar = try hexadecimal(digits: 4, escapeAt: start)
        case UInt8(ascii: "U"): scalar = try hexadecimal(digits: 8, escapeAt: start)
        case 0x21...0x7E:
            throw error(
                "unknown escape '\\\(Character(Unicode.Scalar(code)))' in a double-quoted value", at: start)
        default:
            throw error("unknown escape in a double-quoted value", at: start)
        }
        guard let character = Unicode.Scalar(scalar) else {
            throw error("the escape names no Unicode character", at: start)
        }
        text += Array(String(Character(character)).utf8)
    }

    private mutating func hexadecimal(digits: Int, escapeAt start: Int) throws(ConfigurationError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<digits {
            guard position < bytes.count, let digit = bytes[position].hexadecimalDigitValue else {
                throw error("this escape takes \(digits) hexadecimal digits", at: start)
            }
            value = value << 4 | digit
            position += 1
        }
        return value
    }

    // MARK: Block scalars

    /// A literal (`|`) or folded (`>`) scalar with its chomping (`-`, `+`) and indentation
    /// indicators. Its lines are those indented at least as its first line (or as the indicator
    /// says), which must be indented more than `parentIndent`.
    mutating func parseBlockScalar(parentIndent: Int) throws(ConfigurationError) -> DocumentNode {
        let start = position
        let folded = bytes[position] == .greaterThan
        position += 1
        var chomping: UInt8?
        var explicitIndent: Int?
        for _ in 0..<2 where position < bytes.count {
            let byte = bytes[position]
            if chomping == nil, byte == .minus || byte == UInt8(ascii: "+") {
                chomping = byte
            } else if explicitIndent == nil, (UInt8(ascii: "1")...UInt8(ascii: "9")).contains(byte) {
                explicitIndent = Int(byte - UInt8(ascii: "0"))
            } else {
                break
            }
            position += 1
        }
        let headerEnd = position
        skipBlanks()
        if position < bytes.count, bytes[position] == .hash, position > headerEnd {
            position = endOfLine(from: position)
        }
        if position < bytes.count, !isBreak(bytes[position]) {
            throw error(
                "unexpected text after '\(folded ? ">" : "|")': a block scalar starts on the next line", at: position)
        }
        consumeBreak()

        let contentIndent: Int
        if let explicitIndent {
            contentIndent = max(parentIndent, 0) + explicitIndent
        } else {
            contentIndent = try detectIndent(parentIndent: parentIndent)
        }
        var lines: [ArraySlice<UInt8>?] = []  // nil: an empty line
        while position < bytes.count {
            if contentIndent == 0, isDocumentMarker(.minus, at: position) || isDocumentMarker(.period, at: position) {
                break
            }
            var index = position
            while index < bytes.count, bytes[index] == .space, index - position < contentIndent { index += 1 }
            if index - position < contentIndent, index < bytes.count, bytes[index] == .tab {
                throw error("a tab in a block scalar's indentation: YAML indents with spaces", at: index)
            }
            if index - position < contentIndent || index >= bytes.count || isBreak(bytes[index]) {
                // Less indented: an empty line if nothing but blanks follow, else the end.
                var rest = index
                while rest < bytes.count, isBlank(bytes[rest]) { rest += 1 }
                if rest < bytes.count, !isBreak(bytes[rest]) { break }
                if index - position >= contentIndent, rest > index {
                    // Blanks beyond the indentation are content.
                    lines.append(bytes[index..<rest])
                } else {
                    lines.append(nil)
                }
                position = rest
                consumeBreak()
                continue
            }
            let end = endOfLine(from: index)
            lines.append(bytes[index..<end])
            position = end
            consumeBreak()
        }
        let lastContent = lines.lastIndex { $0 != nil }
        var text: [UInt8] = []
        if let lastContent {
            text = folded ? Self.fold(lines[...lastContent]) : Self.join(lines[...lastContent])
        }
        switch chomping {
        case UInt8(ascii: "-"):
            break
        case UInt8(ascii: "+"):
            let trailing = lines.count - (lastContent.map { $0 + 1 } ?? 0)
            let finalBreak = lastContent != nil ? 1 : 0
            text += [UInt8](repeating: .lineFeed, count: finalBreak + trailing)
        default:
            // The last line's break, also at the end of the input (as the YAML test suite reads it).
            if lastContent != nil { text.append(.lineFeed) }
        }
        return DocumentNode(kind: .string(String(decoding: text, as: UTF8.self)), location: location(start))
    }

    /// The indentation of a block scalar's first non-empty line, or, when it has none, of its
    /// longest line of spaces (at least one more than the parent's). A leading empty line with
    /// more spaces than the first non-empty one is an error (YAML 1.2, 8.1.1.1).
    private func detectIndent(parentIndent: Int) throws(ConfigurationError) -> Int {
        var index = position
        var widest = 0
        var widestAt = position
        while index < bytes.count {
            let lineStart = index
            while index < bytes.count, bytes[index] == .space { index += 1 }
            guard index >= bytes.count || isBreak(bytes[index]) else {
                let indent = index - lineStart
                if widest > indent, indent > parentIndent {
                    throw error(
                        "an empty line of a block scalar has more spaces (\(widest)) than its first line of text (\(indent))",
                        at: widestAt)
                }
                return max(indent, parentIndent + 1)
            }
            if index - lineStart > widest {
                widest = index - lineStart
                widestAt = lineStart
            }
            guard index < bytes.count else { break }
            index += bytes[index] == .carriageReturn && index + 1 < bytes.count && bytes[index + 1] == .lineFeed ? 2 : 1
        }
        return max(widest, parentIndent + 1)
    }

    /// A literal scalar's lines: line breaks kept.
    private static func join(_ lines: ArraySlice<ArraySlice<UInt8>?>) -> [UInt8] {
        var text: [UInt8] = []
        for (index, line) in lines.enumerated() {
            if index > 0 { text.append(.lineFeed) }
            if let line { text += line }
        }
        return text
    }

    /// A folded scalar's lines: a break between two lines of text folds to a space, each empty
    /// line is a line feed, and the breaks around more-indented lines are kept.
    private static func fold(_ lines: ArraySlice<ArraySlice<UInt8>?>) -> [UInt8] {
        var text: [UInt8] = []
        var previousMoreIndented: Bool?
        var emptyLines = 0
        for line in lines {
            guard let line else {
                emptyLines += 1
                continue
            }
            let moreIndented = line.first == .space || line.first == .tab
            if let previous = previousMoreIndented {
                if !previous, !moreIndented {
                    text += emptyLines == 0 ? [.space] : [UInt8](repeating: .lineFeed, count: emptyLines)
                } else {
                    text += [UInt8](repeating: .lineFeed, count: emptyLines + 1)
                }
            } else {
                text += [UInt8](repeating: .lineFeed, count: emptyLines)
            }
            text += line
            previousMoreIndented = moreIndented
            emptyLines = 0
        }
        return text
    }

    // MARK: Flow collections

    /// `[a, b]` or `{a: 1, b: 2}`, over any number of lines; a trailing comma is allowed, an
    /// entry `k: v` in a sequence is a mapping of one pair, and a key without a value is null.
    /// Its lines after the first are indented at least `minimumIndent` spaces (more than the block
    /// it stands in); comment lines aside.
    mutating func parseFlowCollection(depth: Int, minimumIndent: Int) throws(ConfigurationError) -> DocumentNode {
        let start = position
        try checkDepth(depth, at: start)
        let isSequence = bytes[position] == .openBracket
        let close: UInt8 = isSequence ? .closeBracket : .closeBrace
        position += 1
        var elements: [DocumentNode] = []
        var members: [DocumentNode.Member] = []
        var seen: [String: Int] = [:]
        while true {
            try skipFlowSpace(collectionAt: start, minimumIndent: minimumIndent)
            if bytes[position] == close { break }
            let entryStart = position
            if isSequence {
                let entry = try parseFlowEntry(depth: depth + 1, minimumIndent: minimumIndent)
                let entryEnd = position
                try skipFlowSpace(collectionAt: start, minimumIndent: minimumIndent)
                if bytes[position] == .colon {
                    // A key of a one-pair mapping in a sequence stands on one line with its ':'.
                    if bytes[entryEnd..<position].contains(where: isBreak) {
                        throw error("a key and its ':' must be on one line inside a flow sequence", at: position)
                    }
                    guard let key = entry.key else {
                        throw error(
                            "a collection cannot be a mapping key (complex keys are not supported): keys are strings",
                            at: entryStart)
                    }
                    position += 1
                    let value = try parseFlowValue(
                        collectionAt: start, close: close, depth: depth + 2, minimumIndent: minimumIndent)
                    elements.append(
                        DocumentNode(
                            kind: .object([
                                DocumentNode.Member(key: key, keyLocation: location(entryStart), value: value)
                            ]),
                            location: location(entryStart)))
                } else {
                    elements.append(entry.node)
                }
            } else {
                if isFlowStart(bytes[position]) {
                    throw error(
                        "a collection cannot be a mapping key (complex keys are not supported): keys are strings",
                        at: position)
                }
                let entry = try parseFlowEntry(depth: depth + 1, minimumIndent: minimumIndent)
                guard let key = entry.key else {
                    throw error(
                        "a collection cannot be a mapping key (complex keys are not supported): keys are strings",
                        at: entryStart)
                }
                try checkDuplicate(key, plain: entry.plain, at: entryStart, seen: &seen)
                try skipFlowSpace(collectionAt: start, minimumIndent: minimumIndent)
                let value: DocumentNode
                if bytes[position] == .colon {
                    position += 1
                    value = try parseFlowValue(
                        collectionAt: start, close: close, depth: depth + 1, minimumIndent: minimumIndent)
                } else {
                    value = DocumentNode(kind: .null, location: location(position))
                }
                members.append(DocumentNode.Member(key: key, keyLocation: location(entryStart), value: value))
            }
            try skipFlowSpace(collectionAt: start, minimumIndent: minimumIndent)
            if bytes[position] == .comma {
                position += 1
                continue
            }
            guard bytes[position] == close else {
                throw error("expected ',' or '\(Character(Unicode.Scalar(close)))' here", at: position)
            }
            break
        }
        position += 1
        return DocumentNode(kind: isSequence ? .array(elements) : .object(members), location: location(start))
    }

    /// A value after `:` in a flow collection: a node, or null when the entry ends first.
    private mutating func parseFlowValue(collectionAt start: Int, close: UInt8, depth: Int, minimumIndent: Int)
        throws(ConfigurationError) -> DocumentNode
    {
        let colonEnd = position
        try skipFlowSpace(collectionAt: start, minimumIndent: minimumIndent)
        if bytes[position] == .comma || bytes[position] == close {
            return DocumentNode(kind: .null, location: location(colonEnd))
        }
        return try parseFlowEntry(depth: depth, minimumIndent: minimumIndent).node
    }

    /// A node inside a flow collection, with its text when it is a scalar (a possible key).
    private mutating func parseFlowEntry(depth: Int, minimumIndent: Int) throws(ConfigurationError) -> (
        node: DocumentNode, key: String?, plain: Bool
    ) {
        let start = position
        try refuseNodeProperties()
        switch bytes[position] {
        case .openBracket, .openBrace:
            return (try parseFlowCollection(depth: depth, minimumIndent: minimumIndent), nil, false)
        case .singleQuote, .doubleQuote:
            let text = try parseQuotedScalar(minimumIndent: minimumIndent)
            return (DocumentNode(kind: .string(text), location: location(start)), text, false)
        case .verticalBar, .greaterThan:
            throw error("a block scalar ('|' or '>') cannot stand inside a flow collection", at: position)
        case .comma:
            throw error("an empty entry: two commas in a row", at: position)
        case .minus where isBlankOrEnd(at: position + 1):
            throw error("a block sequence entry ('- ') cannot stand inside a flow collection", at: position)
        default:
            let text = try parsePlainScalar(parentIndent: minimumIndent - 1, flow: true)
            return (
                DocumentNode(kind: try typed(text, at: start), location: location(start)),
                text, true
            )
        }
    }

    /// Blanks, line breaks and comments between a flow collection's entries.
    private mutating func skipFlowSpace(collectionAt start: Int, minimumIndent: Int) throws(ConfigurationError) {
        while true {
            guard position < bytes.count else {
                throw error("this flow collection is not closed", at: start)
            }
            let byte = bytes[position]
            if isBlank(byte) {
                position += 1
            } else if isBreak(byte) {
                consumeBreak()
                if isDocumentMarker(.minus, at: position) || isDocumentMarker(.period, at: position) {
                    throw error("this flow collection is not closed", at: start)
                }
                let lineStart = position
                skipSpaces()
                let indent = position - lineStart
                skipBlanks()
                if position < bytes.count, !isBreak(bytes[position]), bytes[position] != .hash, indent < minimumIndent {
                    throw error(
                        "this flow collection is not closed before line \(location(lineStart).line), which is indented "
                            + "less than \(minimumIndent) space(s) (a flow collection's lines are indented more than its block)",
                        at: start)
                }
            } else if byte == .hash, isLineStart(position) || isBlank(bytes[position - 1]) {
                position = endOfLine(from: position)
            } else {
                return
            }
        }
    }
}
