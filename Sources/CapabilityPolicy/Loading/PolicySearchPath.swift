/// Where policy files are looked for, lowest precedence first, the way systemd and polkit
/// layer vendor, admin and runtime files.
///
/// ```swift
/// let path = PolicySearchPath(directories: ["/etc/myservice/policy.d"])
/// let store = PolicyStore(searchPath: path)
/// print(store.current?.policy.gates.keys.sorted() ?? [])
/// ```
public struct PolicySearchPath: Sendable, Equatable {
    /// The directories, lowest precedence first.
    public let directories: [String]
    /// The per-user layer (`$XDG_CONFIG_HOME/capctl`), the last of ``directories``, when there is
    /// one: a system policy that says `final: true` keeps its definitions from being replaced there.
    public let userDirectory: String?

    /// The environment variable that replaces the system roots (colon-separated), so tests
    /// and packagers never touch the real /usr/share, /etc and /run.
    public static let rootsVariable = "CAPCTL_POLICY_ROOTS"

    /// The default roots: vendor, admin, runtime.
    public static let systemRoots = ["/usr/share/capctl", "/etc/capctl", "/run/capctl"]

    /// A search path of exactly these directories.
    public init(directories: [String], userDirectory: String? = nil) {
        self.directories = directories + (userDirectory.map { [$0] } ?? [])
        self.userDirectory = userDirectory
    }

    /// The search path for the given environment: the system roots (or `CAPCTL_POLICY_ROOTS`), then
    /// the per-user layer.
    public init(environment: [String: String]) {
        self.init { environment[$0] }
    }

    /// The same, asking `variable` (getenv, say) for `CAPCTL_POLICY_ROOTS`, `XDG_CONFIG_HOME` and
    /// `HOME` instead of being given a table of every variable.
    public init(variable: (String) -> String?) {
        var roots = Self.systemRoots
        if let override = variable(Self.rootsVariable) {
            roots = override.split(separator: ":").map(String.init).filter { !$0.isEmpty }
        }
        var user: String?
        if let config = variable("XDG_CONFIG_HOME"), config.hasPrefix("/") {
            user = config + "/capctl"
        } else if let home = variable("HOME"), home.hasPrefix("/") {
            user = home + "/.config/capctl"
        }
        self.init(directories: roots, userDirectory: user)
    }
}
