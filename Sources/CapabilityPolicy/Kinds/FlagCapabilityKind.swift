public import Capabilities
import FeatureFlags

/// `kind: flag`: held while a flag of the policy evaluates to `equals` (true by default).
///
/// ```swift
/// let kind = FlagCapabilityKind()  // `kind: flag` in a policy file
/// print(kind.settings.map(\.key))
/// ```
public struct FlagCapabilityKind: CapabilityKind {
    /// Creates the kind.
    public init() {}

    public var name: String { "flag" }
    public var summary: String { "Held while a feature flag of the policy evaluates to a value." }
    /// A flag is read, never asked for.
    public var mayAsk: Bool { false }
    public var settings: [CapabilitySetting] {
        [
            CapabilitySetting("flag", .string, required: true, summary: "The flag's key."),
            CapabilitySetting("equals", .anyValue, summary: "The value it must have (true by default)."),
        ]
    }

    /// The flag is looked up when the policy's flags are loaded, which the policy checks as a whole.
    public func validate(_ settings: CapabilitySettings) throws(CapabilityConfigurationError) {}

    public func makeCapability(_ settings: CapabilitySettings, in context: CapabilityKindContext)
        throws(CapabilityConfigurationError) -> any CapabilityType
    {
        guard let flags = context.flags, let key = settings.string("flag") else {
            throw CapabilityConfigurationError("flag capabilities need the policy's flags")
        }
        return FeatureFlag(key, in: flags, equals: settings.value("equals") ?? true)
    }
}
