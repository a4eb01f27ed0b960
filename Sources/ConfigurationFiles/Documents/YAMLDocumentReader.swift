import Yams

/// Reads YAML into document nodes with line and column for every value.
///
/// Plain scalars are typed by the YAML 1.2 core schema, as flagd's Go reader does: only
/// `true`/`false` are Booleans, so a variant named `on` or `off` stays a string.
package enum YAMLDocumentReader {
    package static func read(_ text: String, file: String) throws(ConfigurationError) -> DocumentNode {
        if let finding = YAMLExtensionScanner.firstExtension(in: text) {
            throw ConfigurationError(
                finding.what, at: FileLocation(file: file, line: finding.line, column: finding.column))
        }
        let root: Node?
        do {
            // Yams's basic resolver types nothing (its default one compiles regular expressions,
            // which loads ICU's data: a millisecond at every capctl start); the core schema below
            // types plain scalars.
            root = try Yams.compose(yaml: text, .basic)
        } catch let error as YamlError {
            throw translate(error, text: text, file: file)
        } catch {
            // Never the error's own description: Yams quotes the text it read there.
            throw ConfigurationError("cannot read YAML", at: FileLocation(file: file, line: 1, column: 1))
        }
        guard let root else {
            throw ConfigurationError("the document is empty", at: FileLocation(file: file, line: 1, column: 1))
        }
        return try convert(root, file: file, depth: 0)
    }

    /// As deep as the JSON reader goes: far beyond any real file, far below the stack's limit.
    static let maximumDepth = 256

    /// Anchors and aliases are refused (``YAMLExtensionScanner`` already refused them, and
    /// tags, before composing; this is the second line of defence).
    private static func refuseExtensions(_ node: Node, at location: FileLocation) throws(ConfigurationError) {
        if let anchor = node.anchor {
            throw ConfigurationError("YAML anchors are not allowed (found &\(anchor.rawValue))", at: location)
        }
    }

    private static func location(_ mark: Mark?, file: String) -> FileLocation {
        FileLocation(file: file, line: mark?.line ?? 1, column: mark?.column ?? 1)
    }

    /// The character at a 1-based line and column of `text` (columns count characters), if any.
    private static func character(at mark: Mark, in text: String) -> Character? {
        guard mark.line >= 1, mark.column >= 1 else { return nil }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard mark.line <= lines.count else { return nil }
        return lines[mark.line - 1].dropFirst(mark.column - 1).first
    }

    private static func location(ofByte offset: Int, in text: String, file: String) -> FileLocation {
        var line = 1
        var column = 1
        for byte in text.utf8.prefix(max(0, offset)) {
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        return FileLocation(file: file, line: line, column: column)
    }

    private static func translate(_ error: YamlError, text: String, file: String) -> ConfigurationError {
        switch error {
        case .scanner(_, _, let mark, _) where character(at: mark, in: text) == "\t":
            // libyaml says "found character that cannot start any token".
            return ConfigurationError(
                "a tab character: YAML indents with spaces, never tabs", at: location(mark, file: file))
        case .scanner(let context, let problem, let mark, _),
            .parser(let context, let problem, let mark, _),
            .composer(let context, let problem, let mark, _):
            let message =
                context.map { "\(problem) (\($0.text) at line \($0.mark.line), column \($0.mark.column))" } ?? problem
            return ConfigurationError(message, at: location(mark, file: file))
        case .duplicatedKeysInMapping(let duplicates, let context):
            return ConfigurationError(
                "duplicate key " + duplicates.map { QuotedName.key($0) }.joined(separator: ", ") + " in mapping",
                at: location(context.mark, file: file))
        case .reader(let problem, let offset, _, let yaml):
            return ConfigurationError(problem, at: location(ofByte: offset ?? 0, in: yaml, file: file))
        default:
            // Never the error's own description: Yams quotes the text it read there.
            return ConfigurationError("cannot read YAML", at: FileLocation(file: file, line: 1, column: 1))
        }
    }

    private static func convert(_ node: Node, file: String, depth: Int) throws(ConfigurationError) -> DocumentNode {
        let here = location(node.mark, file: file)
        if case .alias = node {
            throw ConfigurationError("YAML anchors and aliases are not allowed", at: here)
        }
        try refuseExtensions(node, at: here)
        guard depth < maximumDepth else {
            throw ConfigurationError("nested more than \(maximumDepth) levels deep", at: here)
        }
        switch node {
        case .scalar(let scalar):
            return DocumentNode(kind: try scalarKind(scalar, at: here), location: here)
        case .sequence(let sequence):
            var elements: [DocumentNode] = []
            for element in sequence { elements.append(try convert(element, file: file, depth: depth + 1)) }
            return DocumentNode(kind: .array(elements), location: here)
        case .mapping(let mapping):
            var members: [DocumentNode.Member] = []
            var seen: Set<String> = []
            for (key, value) in mapping {
                let keyLocation = location(key.mark, file: file)
                guard case .scalar(let keyScalar) = key else {
                    throw ConfigurationError("mapping keys must be plain strings", at: keyLocation)
                }
                try refuseExtensions(key, at: keyLocation)
                guard seen.insert(keyScalar.string).inserted else {
                    throw ConfigurationError("duplicate key \(QuotedName.key(keyScalar.string))", at: keyLocation)
                }
                members.append(
                    DocumentNode.Member(
                        key: keyScalar.string, keyLocation: keyLocation,
                        value: try convert(value, file: file, depth: depth + 1)))
            }
            return DocumentNode(kind: .object(members), location: here)
        case .alias:
            throw ConfigurationError("YAML anchors and aliases are not allowed", at: here)
        }
    }

    /// Tags were refused before composing, so a scalar is typed by its style alone: a plain one by
    /// the core schema, a quoted or block one is a string.
    private static func scalarKind(_ scalar: Node.Scalar, at location: FileLocation) throws(ConfigurationError)
        -> DocumentNode.Kind
    {
        guard scalar.style == .plain else { return .string(scalar.string) }
        return coreSchema(scalar.string) ?? .string(scalar.string)
    }

    /// The YAML 1.2 core schema's reading of a plain scalar, or nil for a string.
    private static func coreSchema(_ text: String) -> DocumentNode.Kind? {
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
