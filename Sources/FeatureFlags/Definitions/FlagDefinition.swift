public import ConfigurationFiles

/// One flag as a flag definition file declares it.
///
/// A flag's data lives in one shared, immutable object: copying a definition out of a store on
/// every evaluation costs one reference count, not one per property.
public struct FlagDefinition: Sendable {
    private let storage: Storage

    /// The flag's key.
    public var key: String { storage.key }
    /// False when the file says `"state": "DISABLED"`: evaluations return the caller's default
    /// with the reason ``FlagEvaluationReason/disabled``.
    public var isEnabled: Bool { storage.isEnabled }
    /// The variants, by name. All have the same JSON type.
    public var variants: [String: FlagValue] { storage.variants }
    /// The variant used when targeting picks none; nil means "use the caller's default".
    public var defaultVariant: String? { storage.defaultVariant }
    /// The flag set's metadata overlaid with the flag's own.
    public var metadata: [String: FlagValue] { storage.metadata }
    /// The flag set the flag belongs to (`metadata.flagSetId`, the flag's own or its file's), or
    /// nil for none; what a ``FlagSelector`` of a flag set picks by.
    public var flagSetID: String? {
        if case .string(let id) = storage.metadata["flagSetId"] { return id }
        return nil
    }
    /// Where the flag's key is in its file.
    public var location: FileLocation { storage.location }
    /// Why the flag cannot be evaluated, when it cannot (its evaluations are `PARSE_ERROR`, as in flagd).
    public var problem: ConfigurationError? { storage.problem }

    /// Whether the flag has targeting rules (an empty `{}` counts as none, as in flagd).
    public var hasTargeting: Bool { storage.targeting != nil }

    var targeting: TargetingExpression? { storage.targeting }
    var readsTimestamp: Bool { storage.readsTimestamp }
    /// The default variant's value, looked up once.
    var defaultValue: FlagValue? { storage.defaultValue }

    init(
        key: String, isEnabled: Bool, variants: [String: FlagValue], defaultVariant: String?,
        targeting: TargetingExpression?, metadata: [String: FlagValue], location: FileLocation
    ) {
        storage = Storage(
            key: key, isEnabled: isEnabled, variants: variants, defaultVariant: defaultVariant, targeting: targeting,
            metadata: metadata, location: location, problem: nil)
    }

    /// A flag that is structurally a flag but cannot be evaluated.
    init(
        broken key: String, problem: ConfigurationError, isEnabled: Bool, variants: [String: FlagValue],
        metadata: [String: FlagValue], location: FileLocation
    ) {
        storage = Storage(
            key: key, isEnabled: isEnabled, variants: variants, defaultVariant: nil, targeting: nil, metadata: metadata,
            location: location, problem: problem)
    }

    /// The variant named exactly `name`, code unit for code unit, as flagd's map lookup is
    /// (a Swift dictionary would also match a canonically equivalent name).
    func variant(named name: String) -> (name: String, value: FlagValue)? {
        guard let index = storage.variants.index(forKey: name) else { return nil }
        let entry = storage.variants[index]
        guard JSONLogicSemantics.same(entry.key, name) else { return nil }
        return (entry.key, entry.value)
    }

    private final class Storage: Sendable {
        let key: String
        let isEnabled: Bool
        let variants: [String: FlagValue]
        let defaultVariant: String?
        let metadata: [String: FlagValue]
        let location: FileLocation
        let problem: ConfigurationError?
        let targeting: TargetingExpression?
        let readsTimestamp: Bool
        let defaultValue: FlagValue?

        init(
            key: String, isEnabled: Bool, variants: [String: FlagValue], defaultVariant: String?,
            targeting: TargetingExpression?, metadata: [String: FlagValue], location: FileLocation,
            problem: ConfigurationError?
        ) {
            self.key = key
            self.isEnabled = isEnabled
            self.variants = variants
            self.defaultVariant = defaultVariant
            self.targeting = targeting
            self.readsTimestamp = targeting?.readsTimestamp ?? false
            self.defaultValue = defaultVariant.flatMap { variants[$0] }
            self.metadata = metadata
            self.location = location
            self.problem = problem
        }
    }
}
