public import Capabilities
public import FeatureFlags

/// A kind of capability that policy files can declare (`kind: pam`): its name, the settings it
/// takes, and how to build the capability from them.
///
/// The Linux layer registers the built-in kinds (`pam`, `polkit`, `file`, `host`, `network`,
/// `process-capability`, `user`, `group`; `flag` is built in here); a program registers its own
/// with ``PolicyEnvironment/register(_:)``. Settings are checked against their declared types
/// when a policy loads, and the policy file schema is generated from the registered kinds.
public protocol CapabilityKind: Sendable {
    /// The value of `kind` that selects this kind.
    var name: String { get }
    /// One sentence for the schema and for people.
    var summary: String { get }
    /// The settings a declaration may give, besides `kind` and `description`.
    var settings: [CapabilitySetting] { get }
    /// Whether a capability of this kind answers its status from this host alone (files, system
    /// calls, the user database), asking no daemon, network or person: `capctl validate` reads
    /// such statuses to warn of capabilities that cannot work here. False by default.
    var readsStatusLocally: Bool { get }
    /// Whether a capability of this kind may read the policy's flags (it is handed the flag store
    /// in ``CapabilityKindContext``). A decision on gates whose capabilities never do waits for no
    /// flag service. True by default, the safe answer for a kind that does not say.
    var readsFlags: Bool { get }
    /// Whether a capability of this kind may be notDetermined: asking someone (a password, a
    /// polkit agent) could authorize it. `capctl analyze` reads it to tell whether a gate can
    /// ask. True by default, the safe answer for a kind that does not say.
    var mayAsk: Bool { get }

    /// Checks settings beyond their types when the policy loads (a relative path, an unknown
    /// group), so a mistake is a load error with its position. By default, builds the
    /// capability once with default options.
    func validate(_ settings: CapabilitySettings) throws(CapabilityConfigurationError)

    /// Builds the capability a declaration describes.
    func makeCapability(_ settings: CapabilitySettings, in context: CapabilityKindContext)
        throws(CapabilityConfigurationError) -> any CapabilityType
}

extension CapabilityKind {
    public var readsStatusLocally: Bool { false }

    public var readsFlags: Bool { true }

    public var mayAsk: Bool { true }

    public func validate(_ settings: CapabilitySettings) throws(CapabilityConfigurationError) {
        _ = try makeCapability(settings, in: CapabilityKindContext(options: PolicyOptions(), flags: nil))
    }
}

/// What a kind may use to build its capability.
///
/// ```swift
/// let context = CapabilityKindContext(options: PolicyOptions(), flags: flags)
/// let vault = try MyVaultKind().makeCapability(CapabilitySettings(["policy": .string("backups")]), in: context)
/// print(vault.name)
/// ```
public struct CapabilityKindContext: Sendable {
    /// The options the policy is loaded with (a PAM conversation, for example).
    public var options: PolicyOptions
    /// The policy's flags; nil while a policy is only being checked.
    public var flags: FlagStore?

    /// Creates a context.
    public init(options: PolicyOptions, flags: FlagStore?) {
        self.options = options
        self.flags = flags
    }
}
