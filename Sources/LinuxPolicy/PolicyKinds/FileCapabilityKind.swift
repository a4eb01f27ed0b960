public import Capabilities
public import CapabilityPolicy
import LinuxBackends

/// `kind: file`: access to a file or directory (Docs/Backends/FileAccess.md).
public struct FileCapabilityKind: CapabilityKind {
    /// Creates the kind.
    public init() {}

    public var name: String { "file" }
    public var summary: String { "Held while this process may read, write, execute or create at a path." }
    public var settings: [CapabilitySetting] {
        [
            CapabilitySetting("path", .absolutePath, required: true, summary: "The file or directory."),
            CapabilitySetting(
                "access", .choices(["read", "write", "execute", "create"]), summary: "What is needed (read by default)."
            ),
            CapabilitySetting(
                "type", .choice(["any", "file", "directory"]), summary: "What the path must be (any by default)."),
        ]
    }

    public func makeCapability(_ settings: CapabilitySettings, in context: CapabilityKindContext)
        throws(CapabilityConfigurationError) -> any CapabilityType
    {
        var access: FileAccess.Access = []
        for name in settings.strings("access") ?? ["read"] {
            switch name {
            case "read": access.insert(.read)
            case "write": access.insert(.write)
            case "execute": access.insert(.execute)
            default: access.insert(.create)
            }
        }
        return try FileAccess(
            settings.string("path") ?? "", access: access,
            kind: FileAccess.Kind(rawValue: settings.string("type") ?? "any") ?? .any)
    }
}
