public import Capabilities
public import CapabilityPolicy
import Glibc
import LinuxBackends

/// `kind: pam`: a PAM login (Docs/Backends/PAM.md).
public struct PAMCapabilityKind: CapabilityKind {
    /// Creates the kind.
    public init() {}

    public var name: String { "pam" }
    public var summary: String { "Held after someone authenticates through a PAM service." }
    public var settings: [CapabilitySetting] {
        [
            CapabilitySetting("service", .string, required: true, summary: "The PAM service (a file in /etc/pam.d)."),
            CapabilitySetting(
                "user", .string, summary: "Who authenticates; by default the user capctl is told, or the caller."),
            CapabilitySetting(
                "service-directory", .absolutePath, summary: "Where the service file is, instead of /etc/pam.d."),
            CapabilitySetting("keep", .duration, summary: "How long a login is kept, as sudo keeps its timestamp."),
            CapabilitySetting(
                "account-check", .boolean, summary: "Whether PAM's account stage runs too (true by default)."),
        ]
    }

    public func makeCapability(_ settings: CapabilitySettings, in context: CapabilityKindContext)
        throws(CapabilityConfigurationError) -> any CapabilityType
    {
        let login = try PAMLogin(
            service: settings.string("service") ?? "", user: settings.string("user") ?? context.options.pamUser,
            serviceDirectory: settings.string("service-directory"), conversation: context.options.pamConversation,
            checksAccount: settings.boolean("account-check") ?? true)
        guard let keep = settings.duration("keep") else { return login }
        let kept = login.keepingAuthorization(for: keep)
        // Records belong to whoever runs the check (as sudo's do); the PAM user is in the capability's name.
        guard let records = context.options.keptLoginRecords else { return kept }
        // Every setting, so a changed policy voids what was kept under the old one.
        let fingerprint = settings.values.sorted(by: { $0.key < $1.key }).map { "\($0.key)=\($0.value)" }
            .joined(separator: ";")
        return KeptAcrossProcesses(kept, records: records, uid: geteuid(), fingerprint: fingerprint, keep: keep)
    }
}
