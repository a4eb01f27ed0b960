public import Capabilities

/// A capability kind written as a declaration: its name, summary, settings and how to build the
/// capability, without a type of its own.
///
/// ```swift
/// let vault = DeclaredCapabilityKind(
///     name: "vault", summary: "Held while Vault grants a policy.",
///     settings: [CapabilitySetting("policy", .string, required: true)]
/// ) { settings, _ in VaultPolicy(settings.string("policy")!) }
/// ```
public struct DeclaredCapabilityKind: CapabilityKind {
    /// Builds the capability from checked settings.
    public typealias Make =
        @Sendable (CapabilitySettings, CapabilityKindContext) throws(CapabilityConfigurationError) -> any CapabilityType

    public let name: String
    public let summary: String
    public let settings: [CapabilitySetting]
    public let readsStatusLocally: Bool
    public let readsFlags: Bool
    public let mayAsk: Bool
    private let make: Make

    /// A kind called `name` (the value of `kind:` in policy files), taking `settings`, whose
    /// capability `make` builds. `readsStatusLocally` says its status comes from this host alone
    /// (see ``CapabilityKind/readsStatusLocally``); `readsFlags: false` that `make` never uses the
    /// context's flag store (see ``CapabilityKind/readsFlags``); `mayAsk: false` that its capabilities
    /// never ask anyone (see ``CapabilityKind/mayAsk``).
    public init(
        name: String, summary: String, settings: [CapabilitySetting] = [], readsStatusLocally: Bool = false,
        readsFlags: Bool = true, mayAsk: Bool = true, make: @escaping Make
    ) {
        self.name = name
        self.summary = summary
        self.settings = settings
        self.readsStatusLocally = readsStatusLocally
        self.readsFlags = readsFlags
        self.mayAsk = mayAsk
        self.make = make
    }

    public func makeCapability(_ settings: CapabilitySettings, in context: CapabilityKindContext)
        throws(CapabilityConfigurationError) -> any CapabilityType
    {
        try make(settings, context)
    }
}
