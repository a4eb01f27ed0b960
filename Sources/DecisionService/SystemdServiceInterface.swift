import LinuxBackends
import Varlink

/// What a service does for systemd's `io.systemd.service` interface, which `systemctl` and
/// `varlinkctl` speak to any service: `Ping` (anyone), `Reload` and `SetLogLevel` (root only, as
/// systemd's own services allow them).
///
/// ```swift
/// let store = PolicyStore(searchPath: PolicySearchPath(directories: ["/etc/mydecisions"]), environment: .linux)
/// let control = SystemdServiceControl(reload: { store.reload() }, setLogLevel: { level in print(level ?? 5) })
/// let service = DecisionService(policy: store, audit: AuditTrail(identifier: "mydecisions"), systemdService: control)
/// ```
public struct SystemdServiceControl: Sendable {
    /// Reads the configuration again; returns once it has been read.
    public let reload: @Sendable () -> Void
    /// Sets the most verbose level logged, as a BSD syslog level (0 emergency to 7 debug); nil:
    /// back to the service's default.
    public let setLogLevel: @Sendable (Int?) -> Void

    /// A control that reloads with `reload` and sets the log level with `setLogLevel`.
    /// - Parameters:
    ///   - reload: Reads the configuration again; returns once it has been read.
    ///   - setLogLevel: Sets the most verbose level logged (a BSD syslog level), or the default for nil.
    public init(reload: @escaping @Sendable () -> Void, setLogLevel: @escaping @Sendable (Int?) -> Void) {
        self.reload = reload
        self.setLogLevel = setLogLevel
    }
}

/// `io.systemd.service`, as systemd defines it, for one client.
enum SystemdServiceInterface {
    static let name = "io.systemd.service"

    static let description = """
        # An interface to control basic properties of systemd services.
        interface io.systemd.service

        # Checks that the service answers.
        method Ping() -> ()

        # Reads the service's configuration again (capctld: the policy). Root callers only.
        method Reload() -> ()

        # Sets the most verbose level the service logs, a BSD syslog level (0 emergency to 7
        # debug); null: the default. Root callers only.
        method SetLogLevel(level: ?int) -> ()

        """

    static func interface(_ control: SystemdServiceControl, for client: ClientConnection) -> VarlinkInterface {
        VarlinkInterface(
            name: name, description: description,
            methods: [
                "Ping": { call, replies throws(VarlinkError) in
                    try call.allowOnly([])
                    replies.reply([])
                },
                "Reload": { call, replies throws(VarlinkError) in
                    try call.allowOnly([])
                    guard client.subject.uid == 0 else { throw .permissionDenied }
                    control.reload()
                    replies.reply([])
                },
                "SetLogLevel": { call, replies throws(VarlinkError) in
                    try call.allowOnly(["level"])
                    let level = try call.optionalInt("level", in: 0...7)
                    guard client.subject.uid == 0 else { throw .permissionDenied }
                    control.setLogLevel(level.map(Int.init))
                    replies.reply([])
                },
            ])
    }
}
