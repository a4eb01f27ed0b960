public import ConfigurationFiles

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
/// `flags` may also be an array of flags, each naming its `key` (flagd 0.13's array form); a key
/// may then appear once per flag set (`metadata.flagSetId`, the file's or the flag's own), so one
/// file can hold several flag sets (see ``FlagSelector``).
///
/// Reading is lenient where flagd is, so a file shared with flagd and other OpenFeature providers
/// gives the same answers here: a file whose top level is unreadable fails as a whole, but each
/// flag stands on its own. A flag that cannot be evaluated (no variants, a default variant that
/// is not one, an unknown operator, a `$ref` to nothing) loads as broken and evaluates to
/// `PARSE_ERROR`; a rule that flagd evaluates in spite of a mistake (a `sem_ver` operator that
/// does not exist, a negative `fractional` weight) behaves as in flagd. Every such problem is in
/// ``problems`` with file, line and column, so `capctl validate` can refuse what the service
/// tolerates.
public struct FlagSet: Sendable {
    /// The flags, by key, broken ones included (see ``FlagDefinition/problem``). When the array
    /// form defines a key in several flag sets, the later definition in the file.
    public let flags: [String: FlagDefinition]
    /// Every definition in file order, those of one key in several flag sets included.
    let definitions: [FlagDefinition]
    /// The flag set's own metadata.
    public let metadata: [String: FlagValue]
    /// The file the flags came from.
    public let file: String
    /// Everything wrong in the file, in file order: broken flags, and mistakes flagd tolerates.
    /// Empty for a file that passes strict validation.
    public let problems: [ConfigurationError]

    /// Reads flags from `text`.
    /// - Parameters:
    ///   - text: The file's contents.
    ///   - file: The name used in error messages.
    ///   - format: JSON or YAML; when nil, taken from the file's extension, or from the text.
    ///   - bucketing: How the rules' `fractional` operators bucket (flagd's string hash by default).
    /// - Throws: When the text is not JSON or YAML, or has no `flags` object.
    public static func parse(
        _ text: String, file: String = "<inline>", format: FlagFileFormat? = nil,
        bucketing: FractionalBucketing = .stringHash
    ) throws(ConfigurationError) -> FlagSet {
        let format = format ?? FlagFileFormat(path: file) ?? FlagFileFormat(sniffing: text)
        let root: DocumentNode
        switch format {
        case .json: root = try JSONDocumentReader.read(text, file: file)
        case .yaml: root = try YAMLDocumentReader.read(text, file: file)
        }
        var reader = FlagSetReader(file: file, bucketing: bucketing)
        return try reader.read(root)
    }

    /// Reads flags from an already parsed document (a policy file's inline `flags`, for example).
    package static func read(document: DocumentNode, file: String) throws(ConfigurationError) -> FlagSet {
        var reader = FlagSetReader(file: file)
        return try reader.read(document)
    }

    /// Reads the flag definition file at `path`; `bucketing` as in ``parse(_:file:format:bucketing:)``.
    public static func load(contentsOf path: String, bucketing: FractionalBucketing = .stringHash)
        throws(ConfigurationError) -> FlagSet
    {
        try parse(ConfigurationFile.text(path), file: path, bucketing: bucketing)
    }

    init(
        flags: [String: FlagDefinition], metadata: [String: FlagValue], file: String,
        problems: [ConfigurationError] = [], definitions: [FlagDefinition]? = nil
    ) {
        self.flags = flags
        self.definitions = definitions ?? flags.keys.sorted().map { flags[$0]! }
        self.metadata = metadata
        self.file = file
        self.problems = problems
    }
}

/// Checks a parsed document against flagd's flag definition format and builds the flags,
/// collecting every problem instead of stopping at the first.
private struct FlagSetReader {
    let file: String
    var bucketing: FractionalBucketing = .stringHash
    private var problems: [ConfigurationError] = []
    /// The problems noted so far, to report each once without a quadratic search.
    private var noted: Set<ConfigurationError> = []

    init(file: String, bucketing: FractionalBucketing = .stringHash) {
        self.file = file
        self.bucketing = bucketing
    }

    private static let rootKeys: Set = ["$schema", "flags", "$evaluators", "metadata"]
    private static let flagKeys: Set = ["state", "variants", "defaultVariant", "targeting", "metadata"]
    private static let arrayFlagKeys = flagKeys.union(["key"])

    mutating func read(_ root: DocumentNode) throws(ConfigurationError) -> FlagSet {
        guard case .object(let members) = root.kind else {
            throw ConfigurationError(
                "a flag definition file is an object with \"flags\", found \(root.describedType)", at: root.location)
        }
        guard let flagsMember = root.member("flags") else {
            throw ConfigurationError("\"flags\" is required", at: root.location)
        }
        let flagMembers: [DocumentNode.Member]
        let isArrayForm: Bool
        switch flagsMember.value.kind {
        case .object(let members):
            flagMembers = members
            isArrayForm = false
        case .array(let elements):
            flagMembers = arrayFormMembers(elements)
            isArrayForm = true
        default:
            throw ConfigurationError(
                "\"flags\" must be an object of flags by key or an array of flags, found \(flagsMember.value.describedType)",
                at: flagsMember.value.location)
        }
        checkKeys(members, allowed: Self.rootKeys, what: "at the top level")
        let setMetadata = readMetadata(root.member("metadata"))
        var evaluators: [String: DocumentNode] = [:]
        if let evaluatorsMember = root.member("$evaluators") {
            if case .object(let entries) = evaluatorsMember.value.kind {
                for entry in entries { evaluators[entry.key] = entry.value }
            } else {
                note(
                    ConfigurationError(
                        "\"$evaluators\" must be an object of rules by name, found \(evaluatorsMember.value.describedType)",
                        at: evaluatorsMember.value.location))
            }
        }
        var compiler = TargetingCompiler(evaluators: evaluators, bucketing: bucketing)
        // Shared evaluators are checked even when unused, so a broken one is reported at once.
        for name in evaluators.keys.sorted() {
            do throws(ConfigurationError) {
                try compiler.compileEvaluator(named: name)
            } catch {
                note(error)
            }
        }

        var flags: [String: FlagDefinition] = [:]
        var definitions: [FlagDefinition] = []
        var seen: Set<FlagIdentity> = []
        for member in flagMembers {
            let flag = readFlag(member, setMetadata: setMetadata, compiler: &compiler, keyed: isArrayForm)
            // flagd names a flag by its set and key; the same pair twice is a mistake it lets
            // through (the later one wins), reported here.
            if !seen.insert(FlagIdentity(flagSetID: flag.flagSetID, key: flag.key)).inserted {
                let set = flag.flagSetID.map { "flag set \"\($0)\"" } ?? "no flag set"
                note(
                    ConfigurationError(
                        "flag \"\(flag.key)\" is defined again in \(set); the later definition wins",
                        at: member.keyLocation))
                definitions.removeAll { $0.key == flag.key && $0.flagSetID == flag.flagSetID }
            }
            flags[flag.key] = flag
            definitions.append(flag)
        }
        for problem in compiler.problems { note(problem) }
        let ordered = problems.sorted {
            ($0.location?.line ?? 0, $0.location?.column ?? 0) < ($1.location?.line ?? 0, $1.location?.column ?? 0)
        }
        return FlagSet(flags: flags, metadata: setMetadata, file: file, problems: ordered, definitions: definitions)
    }

    private struct FlagIdentity: Hashable {
        var flagSetID: String?
        var key: String
    }

    /// The array form's flags as members named by their `key`; an element without a usable key is
    /// reported and left out (there is nothing to look it up by).
    private mutating func arrayFormMembers(_ elements: [DocumentNode]) -> [DocumentNode.Member] {
        var members: [DocumentNode.Member] = []
        for element in elements {
            guard case .object = element.kind else {
                note(
                    ConfigurationError(
                        "each flag in a \"flags\" array is an object with a \"key\", found \(element.describedType)",
                        at: element.location))
                continue
            }
            guard let keyMember = element.member("key") else {
                note(ConfigurationError("a flag in a \"flags\" array needs \"key\"", at: element.location))
                continue
            }
            guard case .string(let key) = keyMember.value.kind, !key.isEmpty else {
                note(
                    ConfigurationError(
                        "\"key\" must be a non-empty string, found \(keyMember.value.describedType)",
                        at: keyMember.value.location))
                continue
            }
            members.append(DocumentNode.Member(key: key, keyLocation: keyMember.value.location, value: element))
        }
        return members
    }

    private mutating func note(_ problem: ConfigurationError) {
        if noted.insert(problem).inserted { problems.append(problem) }
    }

    private mutating func checkKeys(_ members: [DocumentNode.Member], allowed: Set<String>, what: String) {
        for member in members where !allowed.contains(member.key) {
            let expected = allowed.sorted().map { "\"\($0)\"" }.joined(separator: ", ")
            note(
                ConfigurationError(
                    "unknown property \(QuotedName.key(member.key)) \(what) (expected \(expected))",
                    at: member.keyLocation))
        }
    }

    /// Scalar metadata; anything else is reported and left out.
    private mutating func readMetadata(_ member: DocumentNode.Member?) -> [String: FlagValue] {
        guard let member else { return [:] }
        guard case .object(let entries) = member.value.kind else {
            note(
                ConfigurationError(
                    "\"metadata\" must be an object, found \(member.value.describedType)", at: member.value.location))
            return [:]
        }
        var metadata: [String: FlagValue] = [:]
        for entry in entries {
            switch entry.value.kind {
            case .bool, .number, .string: metadata[entry.key] = entry.value.value
            default:
                note(
                    ConfigurationError(
                        "metadata values are strings, numbers or Booleans; \"\(entry.key)\" is a \(entry.value.typeName)",
                        at: entry.value.location))
            }
        }
        return metadata
    }

    /// The flag `member` declares; a flag that cannot be evaluated comes back broken, with its problem.
    private mutating func readFlag(
        _ member: DocumentNode.Member, setMetadata: [String: FlagValue], compiler: inout TargetingCompiler,
        keyed: Bool
    ) -> FlagDefinition {
        let key = member.key
        var metadata = setMetadata
        var isEnabled = true
        var variants: [String: FlagValue] = [:]
        do throws(ConfigurationError) {
            let node = member.value
            guard case .object(let properties) = node.kind else {
                throw ConfigurationError(
                    "flag \"\(key)\" must be an object, found \(node.describedType)", at: node.location)
            }
            // flagd ignores properties it does not know; they are reported, not fatal.
            checkKeys(properties, allowed: keyed ? Self.arrayFlagKeys : Self.flagKeys, what: "in flag \"\(key)\"")
            metadata.merge(readMetadata(node.member("metadata"))) { _, flag in flag }

            guard let stateMember = node.member("state") else {
                throw ConfigurationError(
                    "flag \"\(key)\" needs \"state\": \"ENABLED\" or \"DISABLED\"", at: member.keyLocation)
            }
            switch stateMember.value.kind {
            case .string("ENABLED"): isEnabled = true
            case .string("DISABLED"): isEnabled = false
            default:
                throw ConfigurationError(
                    "\"state\" must be \"ENABLED\" or \"DISABLED\", found \(stateMember.value.value)",
                    at: stateMember.value.location)
            }

            guard let variantsMember = node.member("variants") else {
                throw ConfigurationError("flag \"\(key)\" needs \"variants\"", at: member.keyLocation)
            }
            guard case .object(let variantMembers) = variantsMember.value.kind, let first = variantMembers.first else {
                throw ConfigurationError(
                    "\"variants\" must be an object with at least one variant", at: variantsMember.value.location)
            }
            let kind = Self.variantKind(first.value)
            for variant in variantMembers {
                if case .null = variant.value.kind {
                    throw ConfigurationError(
                        "variant \"\(variant.key)\" of flag \"\(key)\" is null; a variant needs a value",
                        at: variant.value.location)
                }
                guard Self.variantKind(variant.value) == kind else {
                    throw ConfigurationError(
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
                        throw ConfigurationError(
                            "default variant \"\(name)\" is not a variant of flag \"\(key)\" (variants: \(names))",
                            at: defaultMember.value.location)
                    }
                    defaultVariant = name
                default:
                    throw ConfigurationError(
                        "\"defaultVariant\" must name a variant (or be null for the code default), found \(defaultMember.value.describedType)",
                        at: defaultMember.value.location)
                }
            }

            var targeting: TargetingExpression?
            if let targetingMember = node.member("targeting") {
                guard case .object(let rule) = targetingMember.value.kind else {
                    throw ConfigurationError(
                        "\"targeting\" must be a rule object, found \(targetingMember.value.describedType)",
                        at: targetingMember.value.location)
                }
                if !rule.isEmpty { targeting = try compiler.compileRule(targetingMember.value) }
            }
            return FlagDefinition(
                key: key, isEnabled: isEnabled, variants: variants, defaultVariant: defaultVariant,
                targeting: targeting, metadata: metadata, location: member.keyLocation)
        } catch {
            note(error)
            return FlagDefinition(
                broken: key, problem: error, isEnabled: isEnabled, variants: variants, metadata: metadata,
                location: member.keyLocation)
        }
    }

    /// Arrays and objects are both "JSON" variants, as in flagd.
    private static func variantKind(_ node: DocumentNode) -> String {
        switch node.kind {
        case .array, .object: "object"
        default: node.typeName
        }
    }
}
