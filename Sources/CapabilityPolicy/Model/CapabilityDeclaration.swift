import ConfigurationFiles
import FeatureFlags

/// A named capability as a policy declares it.
public struct CapabilityDeclaration: Sendable {
    /// What kind of capability, with its settings.
    public enum Specification: Sendable, Equatable {
        case pam(service: String, user: String?, serviceDirectory: String?, keep: Duration?, checksAccount: Bool)
        case file(path: String, access: [String], type: String)
        case host(host: String, port: Int, timeout: Duration)
        case network
        case processCapability(String)
        case user(String)
        case group(String)
        case flag(key: String, equals: FlagValue)

        /// The `kind` key's value.
        public var kind: String {
            switch self {
            case .pam: "pam"
            case .file: "file"
            case .host: "host"
            case .network: "network"
            case .processCapability: "process-capability"
            case .user: "user"
            case .group: "group"
            case .flag: "flag"
            }
        }
    }

    /// The capability's name in the policy.
    public let name: String
    /// Its kind and settings.
    public let specification: Specification
    /// A sentence for people, if the file gives one.
    public let summary: String?
    /// Where it is defined.
    public let location: FileLocation
}
