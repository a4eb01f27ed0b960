import Capabilities
import CapabilityPolicy
import Glibc
import LinuxBackends

/// The declarations of the Linux kinds, one per backend.
enum LinuxKinds {
    /// `kind: pam`: a PAM login (Docs/Backends/PAM.md).
    static let pam = DeclaredCapabilityKind(
        name: "pam", summary: "Held after someone authenticates through a PAM service.",
        settings: [
            CapabilitySetting("service", .string, required: true, summary: "The PAM service (a file in /etc/pam.d)."),
            CapabilitySetting(
                "user", .string, summary: "Who authenticates; by default the user capctl is told, or the caller."),
            CapabilitySetting(
                "service-directory", .absolutePath, summary: "Where the service file is, instead of /etc/pam.d."),
            CapabilitySetting("keep", .duration, summary: "How long a login is kept, as sudo keeps its timestamp."),
            CapabilitySetting(
                "account-check", .boolean, summary: "Whether PAM's account stage runs too (true by default)."),
            CapabilitySetting(
                "tries", .integer(1...PAMLogin.maximumTries),
                summary:
                    "How many passwords may be typed before a wrong one fails (3 by default, as sudo's passwd_tries)."),
            CapabilitySetting(
                "root", .choice(["ask", "pass"]),
                summary:
                    "Whether root's processes are asked like anyone (ask, the default) or hold it without a login (pass, as polkit and sudo)."
            ),
        ],
        // The service file and its modules are read here; nobody is asked for a status.
        readsStatusLocally: true,
        readsFlags: false
    ) { settings, context throws(CapabilityConfigurationError) in
        let login = try pamLogin(settings, context)
        return settings.string("root") == "pass" ? RootWithoutLogin(login) : login
    }

    /// A `kind: pam` capability as its settings say, kept when `keep` says (`root` aside).
    private static func pamLogin(_ settings: CapabilitySettings, _ context: CapabilityKindContext)
        throws(CapabilityConfigurationError) -> any CapabilityType
    {
        let login = try PAMLogin(
            service: settings.string("service") ?? "", user: settings.string("user") ?? context.options.pamUser,
            serviceDirectory: settings.string("service-directory"), conversation: context.options.pamConversation,
            checksAccount: settings.boolean("account-check") ?? true, tries: settings.integer("tries") ?? 3)
        guard let keep = settings.duration("keep") else { return login }
        let kept = login.keepingAuthorization(for: keep)
        // Records belong to whoever runs the check (as sudo's do); the PAM user is in the capability's name.
        guard let records = context.options.keptLoginRecords else { return kept }
        // Every setting, so a changed policy voids what was kept under the old one.
        // A client's login (capctld's) is kept in the records alone, which `Forget` clears.
        return KeptAcrossProcesses(
            kept, records: records, uid: geteuid(), fingerprint: settings.fingerprint, keep: keep, subjectBase: login)
    }

    /// `kind: polkit`: polkit authorizes this process for an action (Docs/Backends/Polkit.md).
    static let polkit = DeclaredCapabilityKind(
        name: "polkit",
        summary: "Held while polkit authorizes this process for an action, asking when its rules say so.",
        settings: [
            CapabilitySetting(
                "action", .pattern("^[a-z0-9][a-z0-9.-]*$"), required: true,
                summary: "The polkit action id, as its .policy file declares it."),
            CapabilitySetting(
                "details", .stringMap,
                summary: "Details for polkit's rules; polkit accepts them only from root or the action's owner."),
            CapabilitySetting(
                "keep", .boolean,
                summary: "Whether polkit's kept authorization (auth_*_keep rules) is reused; true by default."),
        ],
        readsFlags: false
    ) { settings, context throws(CapabilityConfigurationError) in
        try PolkitAuthorization(
            action: settings.string("action") ?? "", details: settings.stringMap("details") ?? [:],
            conversation: context.options.pamConversation,
            keepsTemporaryAuthorization: settings.boolean("keep") ?? true)
    }

    /// `kind: file`: access to a file or directory (Docs/Backends/FileAccess.md).
    static let file = DeclaredCapabilityKind(
        name: "file", summary: "Held while this process may read, write, execute or create at a path.",
        settings: [
            CapabilitySetting("path", .absolutePath, required: true, summary: "The file or directory."),
            CapabilitySetting(
                "access", .choices(["read", "write", "execute", "create"]), summary: "What is needed (read by default)."
            ),
            CapabilitySetting(
                "type", .choice(["any", "file", "directory"]), summary: "What the path must be (any by default)."),
        ],
        readsStatusLocally: true,
        readsFlags: false, mayAsk: false
    ) { settings, _ throws(CapabilityConfigurationError) in
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

    /// `kind: host`: a host that accepts connections on a port (Docs/Backends/Network.md).
    static let host = DeclaredCapabilityKind(
        name: "host", summary: "Held while a host accepts TCP connections on a port.",
        settings: [
            CapabilitySetting("host", .string, required: true, summary: "A host name or address."),
            CapabilitySetting("port", .integer(1...65535), required: true, summary: "The TCP port."),
            CapabilitySetting("timeout", .duration, summary: "How long a connection may take (3s by default)."),
        ],
        readsFlags: false, mayAsk: false
    ) { settings, _ throws(CapabilityConfigurationError) in
        try HostReachability(
            host: settings.string("host") ?? "", port: settings.integer("port") ?? 0,
            timeout: settings.duration("timeout") ?? .seconds(3))
    }

    /// `kind: network`: a usable interface with a default route.
    static let network = DeclaredCapabilityKind(
        name: "network", summary: "Held while an interface is up with an address and a default route.",
        readsFlags: false, mayAsk: false
    ) { _, _ in NetworkPath() }

    /// `kind: process-capability`: a Linux capability(7) in this process's effective set.
    static let processCapability = DeclaredCapabilityKind(
        name: "process-capability",
        summary: "Held while this process has a Linux capability, such as CAP_NET_BIND_SERVICE.",
        settings: [
            CapabilitySetting(
                "capability", .pattern("^([cC][aA][pP]_)?[a-zA-Z_]+$"), required: true,
                summary: "The capability's name.")
        ],
        readsStatusLocally: true,
        readsFlags: false, mayAsk: false
    ) { settings, _ throws(CapabilityConfigurationError) in try ProcessCapability(settings.string("capability") ?? "") }

    /// `kind: user`: this process runs as a user.
    static let user = DeclaredCapabilityKind(
        name: "user", summary: "Held while this process runs as a user.",
        settings: [CapabilitySetting("user", .string, required: true, summary: "A user name or number.")],
        readsStatusLocally: true,
        readsFlags: false, mayAsk: false
    ) { settings, _ throws(CapabilityConfigurationError) in try RunsAsUser(settings.string("user") ?? "") }

    /// `kind: group`: this process is a member of a group.
    static let group = DeclaredCapabilityKind(
        name: "group", summary: "Held while this process is a member of a group.",
        settings: [CapabilitySetting("group", .string, required: true, summary: "A group name or number.")],
        readsStatusLocally: true,
        readsFlags: false, mayAsk: false
    ) { settings, _ throws(CapabilityConfigurationError) in try MemberOfGroup(settings.string("group") ?? "") }
}
