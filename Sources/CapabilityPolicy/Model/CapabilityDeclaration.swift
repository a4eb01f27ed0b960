public import ConfigurationFiles

/// A named capability as a policy declares it.
public struct CapabilityDeclaration: Sendable {
    /// The capability's name in the policy.
    public let name: String
    /// Its kind (`pam`, `file`, ...), one of ``PolicyEnvironment/kinds``.
    public let kind: String
    /// Its settings, checked against the kind's types.
    public let settings: CapabilitySettings
    /// A sentence for people, if the file gives one.
    public let summary: String?
    /// Where it is defined.
    public let location: FileLocation
}
