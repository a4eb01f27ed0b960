import CLinuxSupport
import Foundation
import Glibc
import TestSupport

/// A TCP socket on 127.0.0.1, listening or just holding a port.
final class LoopbackSocket {
    let fd: Int32
    let port: Int

    /// Binds a free port on 127.0.0.1; listens with `backlog` unless it is nil.
    init(listening backlog: Int32?) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        self.fd = fd
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard fd >= 0, bound == 0 else {
            port = 0
            throw POSIXError(.EADDRNOTAVAIL)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        let port = Int(UInt16(bigEndian: address.sin_port))
        self.port = port
        if let backlog, listen(fd, backlog) != 0 { throw POSIXError(.EADDRINUSE) }
    }

    /// Connects a client to this listener and keeps it open (to fill the accept queue). The
    /// connect does not block; this returns once the handshake is done (or was dropped).
    func connectClient() -> Int32 {
        let client = socket(
            AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(client, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        var connected = pollfd(fd: client, events: Int16(POLLOUT), revents: 0)
        _ = poll(&connected, 1, 5_000)
        return client
    }

    deinit { close(fd) }
}

/// A network namespace of the test's own (`ip netns add`), with only a loopback interface,
/// deleted afterwards. Needs root and iproute2.
final class NetworkNamespace {
    let name: String
    /// `/etc/netns/NAME`, which `ip netns exec` bind-mounts over `/etc` files for its command.
    private var etcDirectory: String { "/etc/netns/\(name)" }
    /// Whether this namespace made `/etc/netns` and so removes it again.
    private var madeEtcNetns = false

    static var isAvailable: Bool {
        geteuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/sbin/ip")
            && ((try? runProcess("/usr/sbin/ip", ["netns", "list"]).status) == 0)
    }

    init() throws {
        name = "capabilities-test-\(getpid())-\(UUID().uuidString.prefix(8))"
        try ip(["netns", "add", name])
    }

    deinit {
        _ = try? runProcess("/usr/sbin/ip", ["netns", "del", name])
        try? FileManager.default.removeItem(atPath: etcDirectory)
        if madeEtcNetns { rmdir("/etc/netns") }
    }

    /// Commands run through ``exec`` read `text` as their `/etc/resolv.conf` (the machine's own
    /// file is not touched: `ip netns exec` mounts this one over it in the command's mount namespace).
    func useResolvConf(_ text: String) throws {
        var isDirectory: ObjCBool = false
        if !FileManager.default.fileExists(atPath: "/etc/netns", isDirectory: &isDirectory) {
            try FileManager.default.createDirectory(atPath: "/etc/netns", withIntermediateDirectories: false)
            madeEtcNetns = true
        }
        try FileManager.default.createDirectory(atPath: etcDirectory, withIntermediateDirectories: false)
        try text.write(toFile: etcDirectory + "/resolv.conf", atomically: false, encoding: .utf8)
    }

    /// Runs `ip -n NAME arguments`.
    func inside(_ arguments: [String]) throws {
        try ip(["-n", name] + arguments)
    }

    /// The prefix that runs a command in this namespace.
    var exec: [String] { ["/usr/sbin/ip", "netns", "exec", name] }

    private func ip(_ arguments: [String]) throws {
        let output = try runProcess("/usr/sbin/ip", arguments)
        guard output.status == 0 else {
            throw POSIXError(.EIO, userInfo: ["ip": "\(arguments): \(output.standardError)"])
        }
    }
}
