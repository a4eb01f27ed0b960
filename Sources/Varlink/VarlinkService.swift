import CLinuxSupport
import Glibc
import Locking
import Plumbing
public import SystemPackage

/// Bounds that keep one client from holding a varlink service.
///
/// ```swift
/// let limits = VarlinkLimits(messageSize: 16_384, idleTimeout: .seconds(5))
/// _ = limits
/// ```
public struct VarlinkLimits: Sendable {
    /// The largest message read, in bytes; a longer one closes the connection.
    public var messageSize: Int
    /// How long the client may take to send a whole call, from the end of the last reply (or
    /// from connecting); a slower one is closed.
    public var idleTimeout: Duration

    /// Limits of `messageSize` bytes a message and `idleTimeout` between calls.
    public init(messageSize: Int = 65_536, idleTimeout: Duration = .seconds(10)) {
        (self.messageSize, self.idleTimeout) = (messageSize, idleTimeout)
    }
}

/// A varlink service: handlers for one or more interfaces, served on Unix socket connections
/// (varlink.org). `org.varlink.service` (`GetInfo`, `GetInterfaceDescription`) is answered for
/// every service; each call gets its replies in order; a message that is not a call closes the
/// connection (nothing can be replied to it).
///
/// ```swift
/// import Varlink
///
/// let ping = VarlinkInterface(
///     name: "org.example.ping",
///     description: "interface org.example.ping\nmethod Ping(text: string) -> (text: string)\n",
///     methods: ["Ping": { call, replies throws(VarlinkError) in replies.reply([("text", .string(try call.string("text")))]) }])
/// let service = VarlinkService(
///     info: VarlinkServiceInfo(vendor: "Example", product: "pingd", version: "1", url: "https://example.org"),
///     interfaces: [ping])
/// try await service.run(listeningOn: "/run/pingd.sock")
/// ```
public final class VarlinkService: Sendable {
    /// How serving one connection ended.
    public enum End: Equatable, Sendable {
        /// The client closed the connection between calls.
        case closed
        /// The client broke the protocol, sent too much, or was too slow; why.
        case refused(String)
        /// The service is stopping: the call in progress was answered, no other is taken.
        case stopped
    }

    /// What the service says about itself.
    public let info: VarlinkServiceInfo
    /// The interfaces it answers besides `org.varlink.service`.
    public let interfaces: [VarlinkInterface]
    /// The bounds each connection is served within.
    public let limits: VarlinkLimits
    private let stopping = Wakeup()

    /// A service answering `interfaces`, describing itself with `info`.
    /// - Parameters:
    ///   - info: What `org.varlink.service.GetInfo` tells.
    ///   - interfaces: The interfaces answered (a second one of the same name is ignored).
    ///   - limits: The bounds each connection is served within.
    public init(info: VarlinkServiceInfo, interfaces: [VarlinkInterface], limits: VarlinkLimits = VarlinkLimits()) {
        self.info = info
        self.interfaces = interfaces
        self.limits = limits
    }

    /// Serves the client connected on `connection` on the calling thread until the connection
    /// ends, then closes it. For a listener of your own (systemd's socket activation, say).
    @discardableResult
    public func serve(connection: FileDescriptor) -> End {
        let line = LineConnection(owning: connection)
        defer { line.close() }
        return VarlinkConnection(
            connection: line, info: info, interfaces: interfaces, limits: limits, stopping: stopping
        ).serve()
    }

    /// Listens on a new Unix socket at `path` (nothing may exist there) and serves each client on
    /// a thread of its own, at most `maximumClients` at once (those past it are closed at once),
    /// until the task is cancelled: then no client is accepted, each connection ends after the
    /// call it is in, and the socket file is removed.
    /// - Parameters:
    ///   - path: Where the socket is made.
    ///   - maximumClients: How many clients are served at once.
    public func run(listeningOn path: String, maximumClients: Int = 64) async throws {
        let listener = try Self.listen(at: path)
        defer { unlink(path) }
        try await accept(on: listener, maximumClients: maximumClients)
    }

    /// Serves each client of `listener`, a Unix stream socket that already listens (one systemd
    /// passed, `LISTEN_FDS`, or one made before the service starts, so clients can connect at
    /// once), as ``run(listeningOn:maximumClients:)`` does. The service closes the descriptor
    /// when the task is cancelled; the socket itself is left listening for whoever shares it, and
    /// its file is left in place.
    /// - Parameters:
    ///   - listener: The listening socket; the service owns this descriptor from the call on.
    ///   - maximumClients: How many clients are served at once.
    /// - Throws: `Errno.invalidArgument` when `listener` is not a listening Unix stream socket.
    public func run(adopting listener: FileDescriptor, maximumClients: Int = 64) async throws {
        guard listener.isListeningUnixStreamSocket else {
            try? listener.close()
            throw Errno.invalidArgument
        }
        try await accept(on: listener, maximumClients: maximumClients)
    }

    private func accept(on listener: FileDescriptor, maximumClients: Int) async throws {
        let clients = Lock(0)
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
                let started = DetachedThread.start(named: "varlink-accept") { [self] in
                    while awaitClient(on: listener) {
                        let client = clinux_accept_cloexec(listener.rawValue)
                        guard client >= 0 else {
                            if errno == EINTR || errno == ECONNABORTED || errno == EAGAIN { continue }
                            break
                        }
                        let admitted = clients.withLock { count in
                            guard count < maximumClients else { return false }
                            count += 1
                            return true
                        }
                        let connection = FileDescriptor(rawValue: client)
                        guard admitted else {
                            try? connection.close()
                            continue
                        }
                        let serving = DetachedThread.start(named: "varlink-client") { [self] in
                            serve(connection: connection)
                            clients.withLock { $0 -= 1 }
                        }
                        if !serving {
                            try? connection.close()
                            clients.withLock { $0 -= 1 }
                        }
                    }
                    try? listener.close()
                    done.resume()
                }
                if !started {
                    try? listener.close()
                    done.resume(throwing: Errno.resourceTemporarilyUnavailable)
                }
            }
        } onCancel: {
            stopping.signal()
        }
    }

    /// Waits until a client is waiting (true) or the service stops (false). The stop is a
    /// wakeup, not a shutdown of the socket: an adopted socket may be shared (systemd keeps it).
    private func awaitClient(on listener: FileDescriptor) -> Bool {
        guard let wakeup = stopping.descriptor else {
            // No wakeup pair (out of descriptors): look for the stop at least once a second.
            while !stopping.wasSignalled {
                var one = pollfd(fd: listener.rawValue, events: Int16(POLLIN), revents: 0)
                let ready = poll(&one, 1, 1_000)
                if ready > 0 { return !stopping.wasSignalled }
                if ready < 0, errno != EINTR { return false }
            }
            return false
        }
        var both = [
            pollfd(fd: listener.rawValue, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wakeup.rawValue, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            let ready = poll(&both, 2, -1)
            if ready < 0, errno == EINTR { continue }
            guard ready > 0, both[1].revents == 0, !stopping.wasSignalled else { return false }
            return both[0].revents & Int16(POLLIN) != 0
        }
    }

    private static func listen(at path: String) throws(Errno) -> FileDescriptor {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { throw Errno.fileNameTooLong }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes + [0]) }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw Errno.current }
        let socket = FileDescriptor(rawValue: descriptor)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0
                    && Glibc.listen(descriptor, 64) == 0
            }
        }
        guard bound else {
            let error = Errno.current
            try? socket.close()
            throw error
        }
        return socket
    }
}
