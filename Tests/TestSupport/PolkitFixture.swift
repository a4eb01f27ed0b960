import Foundation
import Glibc

/// A private polkit: a system bus of the test's own (dbus-daemon on a socket in a temporary
/// directory, with polkit's bus policy) and polkitd reading the test's actions and rules, which
/// are bound over /usr/share/polkit-1/actions and /etc/polkit-1/rules.d in a mount namespace of
/// its own. Clients reach it through ``environment`` (`DBUS_SYSTEM_BUS_ADDRESS`). Needs root.
public final class PolkitFixture: @unchecked Sendable {
    // The processes and files are set up in init and only torn down in deinit or stopPolkit.
    public static let polkitd = ["/usr/lib/polkit-1/polkitd", "/usr/libexec/polkitd"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// Whether polkitd, dbus-daemon and unshare are installed and this process is root.
    public static var isAvailable: Bool {
        geteuid() == 0 && polkitd != nil && FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-daemon")
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare")
    }

    public let directory: TemporaryDirectory
    /// The bus's socket directory: what /run/dbus is for a process in ``agentNamespace(pamService:)``.
    public let busDirectory: String
    public let busAddress: String
    private let bus: DaemonProcess
    /// polkitd; its output is read only as far as tests wait for it (it writes a few lines per
    /// load and per agent, far from filling a pipe).
    private var polkit: DaemonProcess?
    /// How many times polkitd has said it finished loading its rules.
    private let loads = Counter()

    /// Starts the bus and polkitd with `actions` (action id to its message; every default `no`, so
    /// only rules grant) and `rules` (JavaScript, as in /etc/polkit-1/rules.d). With `startsPolkit`
    /// false only the bus runs; `busPolicy` adds `<policy>` elements to its configuration.
    public init(actions: [String: String], rules: String, startsPolkit: Bool = true, busPolicy: String = "")
        async throws
    {
        directory = try TemporaryDirectory(prefix: "polkit-test")
        busDirectory = try directory.directory("bus")
        let socket = busDirectory + "/system_bus_socket"
        let configuration = try directory.write(
            """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>system</type>
              <listen>unix:path=\(socket)</listen>
              <auth>EXTERNAL</auth>
              <policy context="default">
                <allow user="*"/>
                <deny own="*"/>
                <deny send_type="method_call"/>
                <allow send_type="signal"/>
                <allow send_requested_reply="true" send_type="method_return"/>
                <allow send_requested_reply="true" send_type="error"/>
                <allow receive_type="method_call"/>
                <allow receive_type="method_return"/>
                <allow receive_type="error"/>
                <allow receive_type="signal"/>
                <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus"/>
                <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Introspectable"/>
              </policy>
              <includedir>/usr/share/dbus-1/system.d</includedir>
              \(busPolicy)
            </busconfig>
            """, to: "bus.conf")
        bus = try await DaemonProcess.dbusDaemon(configuration: configuration)
        busAddress = "unix:path=" + socket
        var policy = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE policyconfig PUBLIC "-//freedesktop//DTD PolicyKit Policy Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/PolicyKit/1/policyconfig.dtd">
            <policyconfig>

            """
        for (id, message) in actions.sorted(by: { $0.key < $1.key }) {
            policy += """
                  <action id="\(id)">
                    <description>\(message)</description>
                    <message>\(message)</message>
                    <defaults><allow_any>no</allow_any><allow_inactive>no</allow_inactive><allow_active>no</allow_active></defaults>
                  </action>

                """
        }
        try directory.write(policy + "</policyconfig>\n", to: "actions/org.example.test.policy")
        try directory.write(rules, to: "rules/10-test.rules")
        guard startsPolkit else { return }
        try startPolkit()
        guard await waitForPolkit() else {
            throw FixtureError("polkitd did not take its bus name (its output is above the failure)")
        }
    }

    deinit {
        polkit?.stop()
        bus.stop()
    }

    /// The environment for a client of this polkit: this process's, with the bus address.
    public var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = busAddress
        return environment
    }

    /// Replaces the rules and returns once polkitd has loaded them again (it watches the directory itself).
    public func writeRules(_ rules: String) async throws {
        let before = loads.count
        try directory.replace("rules/10-test.rules", with: rules)
        while loads.count == before {
            guard let line = await polkit?.nextLine() else { throw FixtureError("polkitd stopped") }
            if line.contains("Finished loading") { _ = loads.increment() }
        }
    }

    /// Stops polkitd; the bus stays.
    public func stopPolkit() {
        polkit?.stop()
        polkit = nil
    }

    /// `command` in a mount namespace where polkit's helper finds this bus (at /run/dbus, as its
    /// environment is cleared) and `pamService` as /etc/pam.d/polkit-1, run as uid 65534.
    public func agentNamespace(pamService: String, command: [String]) throws -> [String] {
        let pam = try directory.directory("pam.d")
        try directory.write(pamService, to: "pam.d/polkit-1")
        let script = """
            set -e
            [ -d /run/dbus ] || { mount -t tmpfs none /run; mkdir /run/dbus; }
            mount --bind "$1" /run/dbus
            mount --bind "$2" /etc/pam.d
            shift 2
            exec /usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
            """
        return [
            "/usr/bin/unshare", "--mount", "--propagation", "private", "/bin/sh", "-c", script, "sh", busDirectory, pam,
        ]
            + command
    }

    private func startPolkit() throws {
        let script = """
            set -e
            mount --bind "$1" /usr/share/polkit-1/actions
            mkdir -p /etc/polkit-1/rules.d
            mount --bind "$2" /etc/polkit-1/rules.d
            exec "$3"
            """
        var environment = self.environment
        environment["G_MESSAGES_DEBUG"] = nil
        polkit = try DaemonProcess(
            [
                "/usr/bin/unshare", "--mount", "--propagation", "private", "/bin/sh", "-c", script, "sh",
                directory.path(of: "actions"), directory.path(of: "rules"), Self.polkitd!,
            ], environment: environment)
    }

    /// Reads polkitd's output until it says it owns its name (it answers from then on).
    private func waitForPolkit() async -> Bool {
        guard let polkit else { return false }
        while let line = await polkit.nextLine() {
            if line.contains("Finished loading") { _ = loads.increment() }
            if line.contains("Acquired the name org.freedesktop.PolicyKit1") { return true }
        }
        return false
    }

    public struct FixtureError: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }
}
