import CLinuxSupport
import Capabilities
import Glibc
import SystemPackage

/// Why a service cannot listen, accept or talk to a client.
public struct ServiceError: Error, Sendable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
    init(_ what: String, errno code: Int32) { description = "\(what): \(String(cString: strerror(code)))" }
}

/// A Unix socket a privileged service (a root daemon) listens on for unprivileged clients, each
/// identified by the kernel when it connects (``ClientConnection/subject``), never by what it says.
///
/// ```swift
/// let listener = try ClientListener(path: "/run/myservice.sock")
/// while true {
///     let client = try listener.accept()
///     let request = try ServeClientRequest(client, policy: policy, gate: "restart") { client in "restarted" }
///     queue.addProcedure(request)
/// }
/// ```
public final class ClientListener: Sendable {
    /// The socket's path.
    public let path: String
    private let descriptor: Int32

    /// Listens at `path`, a socket file others may connect to (`mode`, 0666 by default: the gate,
    /// not the file mode, decides who is served). An old socket at the path is replaced; any
    /// other file there is an error, never removed.
    public init(path: String, mode: UInt32 = 0o666) throws(ServiceError) {
        guard path.hasPrefix("/"), path.utf8.count < 108 else {
            throw ServiceError("a service socket needs an absolute path under 108 bytes, got \"\(path)\"")
        }
        var existing = stat()
        if lstat(path, &existing) == 0 {
            guard (existing.st_mode & S_IFMT) == S_IFSOCK else {
                throw ServiceError("\(path) exists and is not a socket; it is left alone")
            }
            unlink(path)
        }
        let socketDescriptor = clinux_unix_socket(path, Int32(SOCK_STREAM.rawValue), CLINUX_UNIX_LISTEN)
        guard socketDescriptor >= 0 else { throw ServiceError("cannot listen at \(path)", errno: -socketDescriptor) }
        guard chmod(path, mode_t(mode)) == 0 else {
            let code = errno
            try? FileDescriptor(rawValue: socketDescriptor).close()
            throw ServiceError("cannot set the mode of \(path)", errno: code)
        }
        self.path = path
        descriptor = socketDescriptor
    }

    deinit {
        try? FileDescriptor(rawValue: descriptor).close()
        unlink(path)
    }

    /// How long a client may take to send its request or read its reply: a client that connects
    /// and says nothing must not hold a thread of the service for ever.
    public static let clientTimeout = 10

    /// Waits for the next client and identifies it.
    public func accept() throws(ServiceError) -> ClientConnection {
        while true {
            // Close-on-exec from the start: between accept() and fcntl() a concurrent exec would
            // hand the client's connection to the program it runs.
            let connection = clinux_accept_cloexec(descriptor)
            if connection >= 0 {
                var limit = timeval(tv_sec: Self.clientTimeout, tv_usec: 0)
                setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
                setsockopt(connection, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
                do throws(SubjectError) {
                    return ClientConnection(descriptor: connection, subject: try Subject.peer(of: connection))
                } catch {
                    try? FileDescriptor(rawValue: connection).close()
                    throw ServiceError("cannot identify a client: \(error)")
                }
            }
            guard errno == EINTR || errno == ECONNABORTED else { throw ServiceError("cannot accept", errno: errno) }
        }
    }
}
