/// Where policy files are looked for, lowest precedence first, the way systemd and polkit
/// layer vendor, admin and runtime files.
public struct PolicySearchPath: Sendable, Equatable {
    /// The directories, lowest precedence first.
    public let directories: [String]

    /// The environment variable that replaces the system roots (colon-separated), so tests
    /// and packagers never touch the real /usr/share, /etc and /run.
    public static let rootsVariable = "CAPCTL_POLICY_ROOTS"

    /// The default roots: vendor, admin, runtime.
    public static let systemRoots = ["/usr/share/capctl", "/etc/capctl", "/run/capctl"]

    /// A search path of exactly these directories.
    public init(directories: [String]) {
        self.directories = directories
    }

    /// The search path for the given environment.
    public init(environment: [String: String]) {
        var roots = Self.systemRoots
        if let override = environment[Self.rootsVariable] {
            roots = override.split(separator: ":").map(String.init).filter { !$0.isEmpty }
        }
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") {
            roots.append(config + "/capctl")
        } else if let home = environment["HOME"], home.hasPrefix("/") {
            roots.append(home + "/.config/capctl")
        }
        directories = roots
    }
}
