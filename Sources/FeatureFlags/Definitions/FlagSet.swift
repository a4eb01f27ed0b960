/// The flags of one flag definition file, in flagd's format (JSON or YAML):
///
/// ```json
/// {
///   "flags": {
///     "new-export": {
///       "state": "ENABLED",
///       "variants": { "on": true, "off": false },
///       "defaultVariant": "off",
///       "targeting": { "if": [{ "in": [{ "var": "user" }, ["alice", "bob"]] }, "on"] }
///     }
///   },
///   "$evaluators": { ... },
///   "metadata": { "team": "storage" }
/// }
/// ```
///
/// Reading is strict, because a flag that is silently misread can open a gate: an unknown
/// property (a misspelt `targetting`), a default variant that is not a variant, variants of
/// mixed types, an unknown operator or a `$ref` to nothing is an error with file, line and column.
public struct FlagSet: Sendable {
    /// The flags, by key.
    public let flags: [String: FlagDefinition]
    /// The flag set's own metadata.
    public let metadata: [String: FlagValue]
    /// The file the flags came from.
    public let file: String

    /// Reads flags from `text`.
    /// - Parameters:
    ///   - text: The file's contents.
    ///   - file: The name used in error messages.
    ///   - format: JSON or YAML; when nil, taken from the file's extension, or from the text.
    public static func parse(_ text: String, file: String = "<inline>", format: FlagFileFormat? = nil) throws(FlagDefinitionError) -> FlagSet {
        let format = format ?? FlagFileFormat(path: file) ?? FlagFileFormat(sniffing: text)
        let root: DocumentNode
        switch format {
        case .json: root = try JSONDocumentReader.read(text, file: file)
        case .yaml: root = try YAMLDocumentReader.read(text, file: file)
        }
        return try FlagSetReader(file: file).read(root)
    }

    /// Reads flags from an already parsed document (a policy file's inline `flags`, for example).
    package static func read(document: DocumentNode, file: String) throws(FlagDefinitionError) -> FlagSet {
        try FlagSetReader(file: file).read(document)
    }

    /// Reads the flag definition file at `path`.
    public static func load(contentsOf path: String) throws(FlagDefinitionError) -> FlagSet {
        try parse(DefinitionFile.text(path), file: path)
    }

    init(flags: [String: FlagDefinition], metadata: [String: FlagValue], file: String) {
        self.flags = flags
        self.metadata = metadata
        self.file = file
    }
}

/// Checks a parsed document against flagd's flag definition format and builds the flags.
private struct FlagSetReader {
    let file: String

    private static let rootKeys: Set = ["$schema", "flags", "$evaluators", "metadata"]
    private static let flagKeys: Set = ["state", "variants", "defaultVariant", "targeting", "metadata"]

    func read(_ root: DocumentNode) throws(FlagDefinitionError) -> FlagSet {
        guard case .object(let members) = root.kind else {
            throw FlagDefinitionError("a flag definition file is an object with \"flags\", found a \(root.typeName)", at: root.location)
        }
        try checkKeys(members, allowed: Self.rootKeys, what: "at the top level")
        guard let flagsMember = root.member("flags") else {
            throw FlagDefinitionError("\"flags\" is required", at: root.location)
        }
        guard case .object(let flagMembers) = flagsMember.value.kind else {
            throw FlagDefinitionError("\"flags\" must be an object of flags by key, found a \(flagsMember.value.typeName)", at: flagsMember.value.location)
        }
        let setMetadata = try readMetadata(root.member("metadata"))
        var evaluators: [String: DocumentNode] = [:]
        if let evaluatorsMember = root.member("$evaluators") {
            guard case .object(let entries) = evaluatorsMember.value.kind else {
                throw FlagDefinitionError("\"$evaluators\" must be an object of rules by name, found a \(evaluatorsMember.value.typeName)", at: evaluatorsMember.value.location)
            }
            for entry in entries { evaluators[entry.key] = entry.value }
        }
        var compiler = TargetingCompiler(evaluators: evaluators)
        // Shared evaluators are checked even when unused, so a broken one is reported at once.
        for name in evaluators.keys.sorted() { try compiler.compileEvaluator(named: name) }

        var flags: [String: FlagDefinition] = [:]
        for member in flagMembers {
            flags[member.key] = try readFlag(member, setMetadata: setMetadata, compiler: &compiler)
        }
        return FlagSet(flags: flags, metadata: setMetadata, file: file)
    }

    private func checkKeys(_ members: [DocumentNode.Member], allowed: Set<String>, what: String) throws(FlagDefinitionError) {
        for member in members where !allowed.contains(member.key) {
            let expected = allowed.sorted().map { "\"\($0)\"" }.joined(separator: ", ")
            throw FlagDefinitionError("unknown property \"\(member.key)\" \(what) (expected \(expected))", at: member.keyLocation)
        }
    }

    private func readMetadata(_ member: DocumentNode.Member?) throws(FlagDefinitionError) -> [String: FlagValue] {
        guard let member else { return [:] }
        guard case .object(let entries) = member.value.kind else {
            throw FlagDefinitionError("\"metadata\" must be an object, found a \(member.value.typeName)", at: member.value.location)
        }
        var metadata: [String: FlagValue] = [:]
        for entry in entries {
            switch entry.value.kind {
            case .bool, .number, .string: metadata[entry.key] = entry.value.value
            default:
                throw FlagDefinitionError("metadata values are strings, numbers or Booleans; \"\(entry.key)\" is a \(entry.value.typeName)", at: entry.value.location)
            }
        }
        return metadata
    }

    private func readFlag(
        _ member: DocumentNode.Member, setMetadata: [String: FlagValue], compiler: inout TargetingCompiler
    ) throws(FlagDefinitionError) -> FlagDefinition {
        let key = member.key
        let node = member.value
        guard case .object(let properties) = node.kind else {
            throw FlagDefinitionError("flag \"\(key)\" must be an object, found a \(node.typeName)", at: node.location)
        }
        try checkKeys(properties, allowed: Self.flagKeys, what: "in flag \"\(key)\"")

        guard let stateMember = node.member("state") else {
            throw FlagDefinitionError("flag \"\(key)\" needs \"state\": \"ENABLED\" or \"DISABLED\"", at: member.keyLocation)
        }
        let isEnabled: Bool
        switch stateMember.value.kind {
        case .string("ENABLED"): isEnabled = true
        case .string("DISABLED"): isEnabled = false
        default:
            throw FlagDefinitionError("\"state\" must be \"ENABLED\" or \"DISABLED\", found \(stateMember.value.value)", at: stateMember.value.location)
        }

        guard let variantsMember = node.member("variants") else {
            throw FlagDefinitionError("flag \"\(key)\" needs \"variants\"", at: member.keyLocation)
        }
        guard case .object(let variantMembers) = variantsMember.value.kind, let first = variantMembers.first else {
            throw FlagDefinitionError("\"variants\" must be an object with at least one variant", at: variantsMember.value.location)
        }
        let kind = Self.variantKind(first.value)
        var variants: [String: FlagValue] = [:]
        for variant in variantMembers {
            if case .null = variant.value.kind {
                throw FlagDefinitionError("variant \"\(variant.key)\" of flag \"\(key)\" is null; a variant needs a value", at: variant.value.location)
            }
            guard Self.variantKind(variant.value) == kind else {
                throw FlagDefinitionError(
                    "variant \"\(variant.key)\" of flag \"\(key)\" is a \(Self.variantKind(variant.value)), but \"\(first.key)\" is a \(kind); all variants must have one type",
                    at: variant.value.location)
            }
            variants[variant.key] = variant.value.value
        }

        var defaultVariant: String?
        if let defaultMember = node.member("defaultVariant") {
            switch defaultMember.value.kind {
            case .null:
                defaultVariant = nil
            case .string(let name):
                guard variants[name] != nil else {
                    let names = variantMembers.map { "\"\($0.key)\"" }.joined(separator: ", ")
                    throw FlagDefinitionError("default variant \"\(name)\" is not a variant of flag \"\(key)\" (variants: \(names))", at: defaultMember.value.location)
                }
                defaultVariant = name
            default:
                throw FlagDefinitionError("\"defaultVariant\" must name a variant (or be null for the code default), found a \(defaultMember.value.typeName)", at: defaultMember.value.location)
            }
        }

        var targeting: TargetingExpression?
        if let targetingMember = node.member("targeting") {
            guard case .object(let rule) = targetingMember.value.kind else {
                throw FlagDefinitionError("\"targeting\" must be a rule object, found a \(targetingMember.value.typeName)", at: targetingMember.value.location)
            }
            if !rule.isEmpty { targeting = try compiler.compileRule(targetingMember.value) }
        }

        var metadata = setMetadata
        metadata.merge(try readMetadata(node.member("metadata"))) { _, flag in flag }
        return FlagDefinition(
            key: key, isEnabled: isEnabled, variants: variants, defaultVariant: defaultVariant,
            targeting: targeting, metadata: metadata, location: member.keyLocation)
    }

    /// Arrays and objects are both "JSON" variants, as in flagd.
    private static func variantKind(_ node: DocumentNode) -> String {
        switch node.kind {
        case .array, .object: "object"
        default: node.typeName
        }
    }
}
