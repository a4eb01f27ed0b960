public import Capabilities
public import CapabilityPolicy
import LinuxBackends

/// `kind: process-capability`: a Linux capability(7) in this process's effective set.
public struct ProcessCapabilityKind: CapabilityKind {
    /// Creates the kind.
    public init() {}

    public var name: String { "process-capability" }
    public var summary: String { "Held while this process has a Linux capability, such as CAP_NET_BIND_SERVICE." }
    public var settings: [CapabilitySetting] {
        [
            CapabilitySetting(
                "capability", .pattern("^([cC][aA][pP]_)?[a-zA-Z_]+$"), required: true,
                summary: "The capability's name.")
        ]
    }

    public func makeCapability(_ settings: CapabilitySettings, in context: CapabilityKindContext)
        throws(CapabilityConfigurationError) -> any CapabilityType
    {
        try ProcessCapability(settings.string("capability") ?? "")
    }
}

/// `kind: user`: this process runs as a user.
public struct UserCapabilityKind: CapabilityKind {
    /// Creates the kind.
    public init() {}

    public var name: String { "user" }
    public var summary: String { "Held while this process runs as a user." }
    public var settings: [CapabilitySetting] {
        [CapabilitySetting("user", .string, required: true, summary: "A user name or number.")]
    }

    public func makeCapability(_ settings: CapabilitySettings, in context: CapabilityKindContext)
        throws(CapabilityConfigurationError) -> any CapabilityType
    {
        try RunsAsUser(settings.string("user") ?? "")
    }
}

/// `kind: group`: this process is a member of a group.
public struct GroupCapabilityKind: CapabilityKind {
    /// Creates the kind.
    public init() {}

    public var name: String { "group" }
    public var summary: String { "Held while this process is a member of a group." }
    public var settings: [CapabilitySetting] {
        [CapabilitySetting("group", .string, required: true, summary: "A group name or number.")]
    }

    public func makeCapability(_ settings: CapabilitySettings, in context: CapabilityKindContext)
        throws(CapabilityConfigurationError) -> any CapabilityType
    {
        try MemberOfGroup(settings.string("group") ?? "")
    }
}
