public import Capabilities
public import CapabilityPolicy
import LinuxBackends

/// `kind: polkit`: polkit authorizes this process for an action (Docs/Backends/Polkit.md).
public struct PolkitCapabilityKind: CapabilityKind {
    /// Creates the kind.
    public init() {}

    public var name: String { "polkit" }
    public var summary: String {
        "Held while polkit authorizes this process for an action, asking when its rules say so."
    }
    public var settings: [CapabilitySetting] {
        [
            CapabilitySetting(
                "action", .pattern("^[a-z0-9][a-z0-9.-]*$"), required: true,
                summary: "The polkit action id, as its .policy file declares it."),
            CapabilitySetting(
                "details", .stringMap,
                summary: "Details for polkit's rules; polkit accepts them only from root or the action's owner."),
            CapabilitySetting(
                "keep", .boolean,
                summary: "Whether polkit's kept authorization (auth_*_keep rules) is reused; true by default."),
        ]
    }

    public func makeCapability(_ settings: CapabilitySettings, in context: CapabilityKindContext)
        throws(CapabilityConfigurationError) -> any CapabilityType
    {
        try PolkitAuthorization(
            action: settings.string("action") ?? "", details: settings.stringMap("details") ?? [:],
            conversation: context.options.pamConversation,
            keepsTemporaryAuthorization: settings.boolean("keep") ?? true)
    }
}
