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
    /// Where each setting's value stands, for errors found when the policy is checked as a whole.
    var settingLocations: [String: FileLocation] = [:]
    /// Whether the per-user layer defined it (which matters under a final system policy).
    var fromUserLayer = false
}
