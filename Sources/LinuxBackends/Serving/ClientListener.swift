import CLinuxSupport
import Capabilities
import Glibc
import Locking
import Plumbing
import SystemPackage

/// Why a service cannot listen, accept or talk to a client.
public struct ServiceError: Error, Sendable, CustomStringConvertible {
    public let description: String
    /// The errno behind it, when there is one.
    let code: Int32?
    /// About one client only (it could not be identified); the listener goes on.
    let isClientError: Bool
    /// The listener was shut down.
    let isShutDown: Bool

    package init(_ description: String, clientError: Bool = false, shutDown: Bool = false) {
        (self.description, code, isClientError, isShutDown) = (description, nil, clientError, shutDown)
    }

    static let shutDown = ServiceError("the listener was shut down", shutDown: true)

    init(_ what: String, errno code: Int32) {
        (description, self.code, isClientError, isShutDown) = (
            "\(what): \(String(cString: strerror(code)))", code, false, false
        )
    }

    /// The process or the system is out of descriptors or memory for now.
    var isResourceShortage: Bool {
        code.map { [EMFILE, ENFILE, ENOBUFS, ENOMEM].contains($0) } ?? false
    }
}

/// A Unix socket a privileged service (a root daemon) listens on for unprivileged clients, each
/// identified by the kernel when it connects (``ClientConnection/subject``), never by what it says.
///
/// ``run(_:)`` serves each client on a thread of its own, within ``ClientLimits``: a client that
/// says nothing, or never answers its PAM question, holds only its own slot until its own
/// deadline, and the next client is served at once.
///
/// ```swift
/// let listener = try ClientListener(path: "/run/myservice.sock")
/// try listener.run { client in
///     guard let request = try? client.readRequest(), request == "restart" else { return }
///     let serve = try? ServeClientRequest(client, policy: policy, gate: "restart") { _ in "restarted" }
///     serve.map { queue.addProcedure($0) }
/// }
/// ```
public final class ClientListener: Sendable {
    /// The socket's path.
    public let path: String
    /// What one client, one user and all clients together may hold.
    public var limits: ClientLimits { admission.limits }
    private let descriptor: FileDescriptor
    /// Whether this listener made the socket file (and removes it when it goes), rather than
    /// being handed a socket by systemd, which owns its file.
    private let ownsSocketFile: Bool
    private let isShutDown = Lock(false)
    private let socketFileRemoved = Lock(false)
    private let admission: ClientAdmission
    /// What a client past the limits is sent before it is closed, given why.
    private let refusal: @Sendable (String) -> [UInt8]
    /// Threads for clients: each admitted client's handler runs on one, never on Dispatch's or
    /// Swift's shared pools, where a handler waiting on its client would hold up others.
    private let clientThreads: BlockingThreads

    /// Listens at `path`, a socket file others may connect to (`mode`, 0666 by default: the gate,
    /// not the file mode, decides who is served), serving clients within `limits`. An old socket
    /// at the path is replaced; any other file there is an error, never removed.
    /// A client past the limits is sent `refusal(reason)` (by default the line `error: REASON`).
    public init(
        path: String, mode: UInt32 = 0o666, limits: ClientLimits = ClientLimits(),
        refusal: @escaping @Sendable (String) -> [UInt8] = ClientListener.lineRefusal
    ) throws(ServiceError) {
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
        let made = clinux_unix_socket(path, Int32(SOCK_STREAM.rawValue), CLINUX_UNIX_LISTEN)
        guard let socket = FileDescriptor(adopting: made) else {
            throw ServiceError("cannot listen at \(path)", errno: -made)
        }
        guard chmod(path, mode_t(mode)) == 0 else {
            let code = errno
            try? socket.close()
            throw ServiceError("cannot set the mode of \(path)", errno: code)
        }
        self.path = path
        descriptor = socket
        ownsSocketFile = true
        admission = ClientAdmission(limits)
        clientThreads = BlockingThreads(limit: limits.total)
        self.refusal = refusal
    }

    /// Serves on a listening socket systemd handed over (socket activation: `LISTEN_FDS`), which
    /// must be a Unix stream socket that listens; its file is systemd's, and is left in place.
    /// The listener owns the descriptor from here (systemd's first is 3, `SD_LISTEN_FDS_START`).
    public init(
        adopting rawDescriptor: Int32, limits: ClientLimits = ClientLimits(),
        refusal: @escaping @Sendable (String) -> [UInt8] = ClientListener.lineRefusal
    ) throws(ServiceError) {
        let socket = FileDescriptor(rawValue: rawDescriptor)
        guard socket.isListeningUnixStreamSocket else {
            throw ServiceError("descriptor \(socket.rawValue) is not a listening Unix stream socket")
        }
        var address = sockaddr_un()
        var addressLength = socklen_t(MemoryLayout<sockaddr_un>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket.rawValue, $0, &addressLength) }
        }
        path =
            named == 0
            ? withUnsafeBytes(of: address.sun_path) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) } : ""
        // Close-on-exec, as sockets this listener makes are: systemd hands it over without.
        _ = fcntl(socket.rawValue, F_SETFD, FD_CLOEXEC)
        descriptor = socket
        ownsSocketFile = false
        admission = ClientAdmission(limits)
        clientThreads = BlockingThreads(limit: limits.total)
        self.refusal = refusal
    }

    deinit {
        try? descriptor.close()
        removeSocketFile()
    }

    /// Removes the socket file this listener made, once: at shutdown, so a process that stops
    /// leaves no file behind, and never again later (a successor may have made the path anew).
    private func removeSocketFile() {
        guard ownsSocketFile else { return }
        let first = socketFileRemoved.withLock { removed in
            defer { removed = true }
            return !removed
        }
        if first { unlink(path) }
    }

    /// Stops accepting: ``run(_:)`` and ``accept()`` return (or throw) at once; clients being
    /// served go on until they are done. Connections waiting in the backlog are refused, and a
    /// socket file the listener made is removed.
    public func shutdown() {
        removeSocketFile()
        isShutDown.withLock { $0 = true }
        // On a listening socket, this wakes a thread blocked in accept(), which then fails.
        _ = Glibc.shutdown(descriptor.rawValue, Int32(SHUT_RDWR))
    }

    /// The default refusal: one line, `error: busy: …`.
    public static let lineRefusal: @Sendable (String) -> [UInt8] = { reason in Array("error: \(reason)\n".utf8) }

    /// How many clients are being served now.
    public var clientCount: Int { admission.clientCount }

    /// Waits until every client being served is done, or until `deadline`; whether all are.
    public func waitUntilIdle(until deadline: ContinuousClock.Instant) -> Bool {
        admission.waitUntilIdle(until: deadline)
    }

    /// How long a client may take to read a line the service sends it (a reply, a PAM question)
    /// once the socket's buffer is full, in seconds.
    static let sendTimeout = 10

    /// Waits for the next client within ``limits`` and identifies it. A client past the limits is
    /// told `error: busy: …` and closed, and the next one is awaited; a client that cannot be
    /// identified is closed and reported.
    public func accept() throws(ServiceError) -> ClientConnection {
        while true {
            // Close-on-exec from the start: between accept() and fcntl() a concurrent exec would
            // hand the client's connection to the program it runs.
            let connection = clinux_accept_cloexec(descriptor.rawValue)
            guard connection >= 0 else {
                if isShutDown.withLock({ $0 }) { throw ServiceError.shutDown }
                guard errno == EINTR || errno == ECONNABORTED else { throw ServiceError("cannot accept", errno: errno) }
                continue
            }
            // Owned from here: closed on every path that does not hand it to a client.
            let owned = LineConnection(owning: FileDescriptor(rawValue: connection))
            let deadline = ContinuousClock.now + limits.requestTimeout
            var limit = timeval(tv_sec: Self.sendTimeout, tv_usec: 0)
            setsockopt(connection, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
            let subject: Subject
            do throws(SubjectError) {
                subject = try Subject.peer(of: connection)
            } catch {
                throw ServiceError("cannot identify a client: \(error)", clientError: true)
            }
            switch admission.admit(uid: subject.uid) {
            case .success(let slot):
                return ClientConnection(connection: owned, subject: subject, requestDeadline: deadline, slot: slot)
            case .failure(let busy):
                // Never waits on the refused client: what does not fit its socket buffer is dropped.
                let line = refusal(busy.description)
                _ = line.withUnsafeBytes {
                    send(connection, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL))
                }
            }
        }
    }

    /// Serves clients until ``shutdown()`` (then it returns) or until accepting fails for good:
    /// each admitted client is handed to `handle` on a thread of its own, so `handle` may block on
    /// its client (``ClientConnection/readRequest()``, a PAM conversation) without holding up
    /// anyone else. A client that cannot be identified is skipped; running out of descriptors is
    /// waited out.
    public func run(_ handle: @escaping @Sendable (ClientConnection) -> Void) throws(ServiceError) {
        try acceptClients { client in clientThreads.run { handle(client) } }
    }

    /// Accepts and identifies clients until ``shutdown()`` or until accepting fails for good,
    /// handing each admitted one to `admitted` on the accepting thread.
    func acceptClients(_ admitted: (ClientConnection) -> Void) throws(ServiceError) {
        while true {
            let client: ClientConnection
            do {
                client = try accept()
            } catch {
                if error.isShutDown { return }
                if error.isClientError { continue }
                guard error.isResourceShortage else { throw error }
                // The pending connection stays queued; retrying at once would spin.
                var pause = timespec(tv_sec: 0, tv_nsec: 50_000_000)
                nanosleep(&pause, nil)
                continue
            }
            admitted(client)
        }
    }
}
