import Foundation
import Glibc

/// Programs that gain privileges when started, as an attacker finds them on a host: a copy of
/// `/bin/sleep` that is setuid root, and one that carries a file capability
/// (`cap_net_bind_service+ep`, no uid change), in a directory of their own that any user can
/// reach. Root makes them (chown and setcap need it); each waits
/// for as many seconds as it is told, as passwd waits at its prompt.
public final class PrivilegedPrograms: Sendable {
    private let directory: TemporaryDirectory
    /// The setuid-root copy of sleep.
    public let setuidRoot: String
    /// The copy of sleep with CAP_NET_BIND_SERVICE in its permitted and effective file sets.
    public let fileCapability: String

    public init() throws {
        directory = try TemporaryDirectory(prefix: "privileged-programs")
        setuidRoot = directory.path + "/sleep-setuid-root"
        fileCapability = directory.path + "/sleep-cap-net-bind-service"
        for copy in [setuidRoot, fileCapability] {
            try FileManager.default.copyItem(atPath: "/bin/sleep", toPath: copy)
            guard chown(copy, 0, 0) == 0 else { throw FixtureError("cannot chown \(copy): \(errno)") }
        }
        guard chmod(setuidRoot, 0o4755) == 0 else { throw FixtureError("cannot make \(setuidRoot) setuid") }
        chmod(fileCapability, 0o755)
        let setcap = try runProcess("/usr/sbin/setcap", ["cap_net_bind_service+ep", fileCapability])
        guard setcap.status == 0 else {
            throw FixtureError("cannot give \(fileCapability) a file capability: \(setcap.standardError)")
        }
    }
}

extension PrivilegedPrograms {
    /// The policy's capabilities the programs' gains would open: `sys-admin` (setuid root gains
    /// CAP_SYS_ADMIN) and `net-bind` (the file capability), as a policy's `capabilities:` block.
    public static let capabilitiesTheyGain = """
        capabilities:
          sys-admin: { kind: process-capability, capability: CAP_SYS_ADMIN }
          net-bind: { kind: process-capability, capability: CAP_NET_BIND_SERVICE }

        """

    /// What a client gets when it connects to `socket` as uid 65534 (with `credentials`, setpriv's
    /// options), then execs `program` for 30 s while a child it started sends `request` (`\n` and
    /// `\0` written so) on the inherited connection: the exec'd process as the child read it from
    /// /proc (`uid=REAL,EFFECTIVE capeff=HEX`, showing the exec gained what it should) and the
    /// service's reply.
    public static func execAfterConnect(
        _ socket: String, request: String, program: String, credentials: [String] = ["--clear-groups"]
    ) async throws -> (program: String, reply: String) {
        let client = try DaemonProcess(
            ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534"] + credentials
                + [builtProductForAnyUser("capability-probe"), "exec-after-connect", socket, request, program, "30"],
            environment: [:])
        defer { client.stop() }
        let exec = await client.nextLine() ?? ""
        let reply = await client.nextLine() ?? ""
        return (String(exec.dropFirst("program: ".count)), String(reply.dropFirst("reply: ".count)))
    }

    /// ``execAfterConnect(_:request:program:credentials:)``, the client making the same call once
    /// before its exec too, on the same connection: the reply before, the program, the reply after.
    public static func execAfterAsking(
        _ socket: String, request: String, program: String, credentials: [String] = ["--clear-groups"]
    ) async throws -> (before: String, program: String, reply: String) {
        let client = try DaemonProcess(
            ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534"] + credentials
                + [builtProductForAnyUser("capability-probe"), "exec-after-asking", socket, request, program, "30"],
            environment: [:])
        defer { client.stop() }
        let before = await client.nextLine() ?? ""
        let exec = await client.nextLine() ?? ""
        let reply = await client.nextLine() ?? ""
        return (
            String(before.dropFirst("before: ".count)), String(exec.dropFirst("program: ".count)),
            String(reply.dropFirst("reply: ".count))
        )
    }
}
