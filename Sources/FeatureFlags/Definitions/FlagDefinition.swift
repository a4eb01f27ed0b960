/// One flag as a flag definition file declares it.
public struct FlagDefinition: Sendable {
    /// The flag's key.
    public let key: String
    /// False when the file says `"state": "DISABLED"`: evaluations return the caller's default
    /// with the reason ``FlagEvaluationReason/disabled``.
    public let isEnabled: Bool
    /// The variants, by name. All have the same JSON type.
    public let variants: [String: FlagValue]
    /// The variant used when targeting picks none; nil means "use the caller's default".
    public let defaultVariant: String?
    /// The flag set's metadata overlaid with the flag's own.
    public let metadata: [String: FlagValue]
    /// Where the flag's key is in its file.
    public let location: FileLocation

    let targeting: TargetingExpression?
    let readsTimestamp: Bool
    /// The default variant's value, looked up once.
    let defaultValue: FlagValue?
    /// The JSON type every variant has ("boolean", "string", "number" or "object").
    let valueType: String

    /// Whether the flag has targeting rules (an empty `{}` counts as none, as in flagd).
    public var hasTargeting: Bool { targeting != nil }

    init(
        key: String, isEnabled: Bool, variants: [String: FlagValue], defaultVariant: String?,
        targeting: TargetingExpression?, metadata: [String: FlagValue], location: FileLocation
    ) {
        self.key = key
        self.isEnabled = isEnabled
        self.variants = variants
        self.defaultVariant = defaultVariant
        self.targeting = targeting
        self.readsTimestamp = targeting?.readsTimestamp ?? false
        self.defaultValue = defaultVariant.flatMap { variants[$0] }
        switch variants.values.first {
        case .list?, .structure?: valueType = "object"
        case let value?: valueType = value.typeName
        case nil: valueType = "null"
        }
        self.metadata = metadata
        self.location = location
    }
}
