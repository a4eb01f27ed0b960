public import Capabilities
public import CapabilityPolicy
import LinuxBackends

/// `kind: host`: a host that accepts connections on a port (Docs/Backends/Network.md).
public struct HostCapabilityKind: CapabilityKind {
    /// Creates the kind.
    public init() {}

    public var name: String { "host" }
    public var summary: String { "Held while a host accepts TCP connections on a port." }
    public var settings: [CapabilitySetting] {
        [
            CapabilitySetting("host", .string, required: true, summary: "A host name or address."),
            CapabilitySetting("port", .integer(1...65535), required: true, summary: "The TCP port."),
            CapabilitySetting("timeout", .duration, summary: "How long a connection may take (3s by default)."),
        ]
    }

    public func makeCapability(_ settings: CapabilitySettings, in context: CapabilityKindContext)
        throws(CapabilityConfigurationError) -> any CapabilityType
    {
        try HostReachability(
            host: settings.string("host") ?? "", port: settings.integer("port") ?? 0,
            timeout: settings.duration("timeout") ?? .seconds(3))
    }
}

/// `kind: network`: a usable interface with a default route.
public struct NetworkCapabilityKind: CapabilityKind {
    /// Creates the kind.
    public init() {}

    public var name: String { "network" }
    public var summary: String { "Held while an interface is up with an address and a default route." }
    public var settings: [CapabilitySetting] { [] }

    public func makeCapability(_ settings: CapabilitySettings, in context: CapabilityKindContext)
        throws(CapabilityConfigurationError) -> any CapabilityType
    {
        NetworkPath()
    }
}
