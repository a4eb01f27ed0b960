import ConfigurationFiles
import Capabilities
import FeatureFlags
import LinuxCapabilities

/// Turns a declaration into a live capability.
enum CapabilityFactory {
    static func make(
        _ declaration: CapabilityDeclaration, options: PolicyOptions, flags: FlagStore?
    ) throws(CapabilityConfigurationError) -> any CapabilityType {
        switch declaration.specification {
        case .pam(let service, let user, let directory, let keep, let checksAccount):
            let login = try PAMLogin(
                service: service, user: user ?? options.pamUser, serviceDirectory: directory,
                conversation: options.pamConversation, checksAccount: checksAccount)
            guard let keep else { return login }
            return login.keepingAuthorization(for: keep)
        case .file(let path, let access, let type):
            var set: FileAccess.Access = []
            for name in access {
                switch name {
                case "read": set.insert(.read)
                case "write": set.insert(.write)
                case "execute": set.insert(.execute)
                default: set.insert(.create)
                }
            }
            return try FileAccess(path, access: set, kind: FileAccess.Kind(rawValue: type) ?? .any)
        case .host(let host, let port, let timeout):
            return try HostReachability(host: host, port: port, timeout: timeout)
        case .network:
            return NetworkPath()
        case .processCapability(let name):
            return try ProcessCapability(name)
        case .user(let user):
            return try RunsAsUser(user)
        case .group(let group):
            return try MemberOfGroup(group)
        case .flag(let key, let expected):
            guard let flags else { throw CapabilityConfigurationError("flag capabilities need the policy's flags") }
            return FeatureFlag(key, in: flags, equals: expected)
        }
    }
}
