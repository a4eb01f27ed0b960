import CLinuxSupport
import Glibc
import Locking
import Plumbing
package import SystemPackage

/// A connection to a varlink service on a Unix socket. Calls are made one after another (from
/// several threads, each waits its turn): each waits for its reply, at most ``timeout``.
///
/// ```swift
/// import Varlink
///
/// let client = try VarlinkClient(path: "/run/capctl/capctld.sock")
/// let reply = try client.call("org.capctl.gates.Check", [("gate", .string("restart-unit"))])
/// print(reply["decision"]?["outcome"] ?? .null)
/// ```
public final class VarlinkClient: Sendable {
    /// Why a call got no reply, or got an error.
    public enum Failure: Error, Sendable, CustomStringConvertible {
        /// The service answered with an error.
        case error(VarlinkError)
        /// The connection failed, closed, or the reply did not come in time or was not varlink.
        case connection(String)

        public var description: String {
            switch self {
            case .error(let error): "\(error)"
            case .connection(let reason): reason
            }
        }
    }

    /// How long a call waits for its reply.
    public let timeout: Duration
    /// The user the service runs as, as the kernel said when connecting (`SO_PEERCRED`): whose
    /// word its answers are.
    public let serviceUID: UInt32
    private let connection: LineConnection
    /// Held from a call's sending to its last reply, so two threads' replies never cross.
    private let turn = Lock(())

    /// The largest reply read, in bytes.
    static let replyLimit = 1 << 20

    /// Connects to the service listening at `path`.
    public convenience init(path: String, timeout: Duration = .seconds(10)) throws(Failure) {
        let descriptor = clinux_unix_socket(path, Int32(SOCK_STREAM.rawValue), CLINUX_UNIX_CONNECT)
        guard descriptor >= 0 else {
            throw .connection("cannot connect to \(path): \(String(cString: strerror(-descriptor)))")
        }
        // Replies are awaited in poll, not in a blocking read: a thread asleep in read() is woken
        // each time the service reads one of its calls (the kernel tells a Unix socket's sleepers
        // that it has room to write again), and that wake-up cost the service a quarter of its time.
        try self.init(adopting: FileDescriptor(rawValue: descriptor), path: path, timeout: timeout)
    }

    /// A client of the connection `descriptor` (to the service at `path`), which it owns from now
    /// on: capctl's front connects and calls before capctl's own code is loaded
    /// (``reply(to:decoding:)``).
    package init(adopting descriptor: FileDescriptor, path: String, timeout: Duration = .seconds(10)) throws(Failure) {
        connection = LineConnection(owning: descriptor)
        var (pid, uid, gid): (Int32, UInt32, UInt32) = (0, 0, 0)
        let failed = clinux_socket_peer_credentials(descriptor.rawValue, &pid, &uid, &gid)
        guard failed == 0 else {
            connection.close()
            throw .connection("cannot tell who serves \(path): \(String(cString: strerror(failed)))")
        }
        serviceUID = uid
        self.timeout = timeout
    }

    /// Calls `method` (fully qualified) with `parameters` and returns the reply's parameters (an
    /// object), or throws the error the service replied with.
    public func call(_ method: String, _ parameters: [(key: String, value: VarlinkValue)] = []) throws(Failure)
        -> VarlinkValue
    {
        try reply(exchange(method, parameters)).parameters
    }

    /// How ``call(_:_:decoding:)`` read a reply: by the caller's decoder, or as any reply is.
    package enum Read<Decoded> {
        /// What the caller's decoder made of the reply.
        case decoded(Decoded)
        /// The reply's parameters, as ``call(_:_:)`` returns them.
        case parameters(VarlinkValue)
    }

    /// Calls `method` as ``call(_:_:)`` does, offering the reply's bytes (without the NUL) to
    /// `decode` first: a reader of the one reply the caller expects, which returns nil for
    /// anything else (an error, a member or an escape it does not read), and which accepts only
    /// what reading the reply as any other would make the same value of. What it declines is
    /// read as every reply is.
    package func call<Decoded>(
        _ method: String, _ parameters: [(key: String, value: VarlinkValue)],
        decoding decode: ([UInt8]) -> Decoded?
    ) throws(Failure) -> Read<Decoded> {
        try read(exchange(method, parameters), decoding: decode)
    }

    /// A reply's bytes offered to `decode` first, then read as every reply is.
    private func read<Decoded>(_ bytes: [UInt8], decoding decode: ([UInt8]) -> Decoded?) throws(Failure)
        -> Read<Decoded>
    {
        if let decoded = decode(bytes) { return .decoded(decoded) }
        return .parameters(try reply(bytes).parameters)
    }

    /// Sends a call of `method` and reads its reply's bytes, in this connection's turn.
    private func exchange(_ method: String, _ parameters: [(key: String, value: VarlinkValue)]) throws(Failure)
        -> [UInt8]
    {
        try turn.withLock { _ throws(Failure) in
            try send(method, parameters, flags: [])
            return try replyBytes(until: .now + timeout)
        }
    }

    /// A call made on this connection before it was adopted (``init(adopting:path:timeout:)``).
    package enum StartedCall {
        /// Its sending failed: the service went away.
        case notSent
        /// Sent, its reply not read.
        case sent
        /// Sent, and waited for a whole ``timeout`` without a reply.
        case waited
    }

    /// The reply to `call`, the one call made on this connection before it was adopted, read as
    /// ``call(_:_:decoding:)`` reads a reply; a call that was not sent, or waited out, fails as
    /// one of this client's would have.
    package func reply<Decoded>(to call: StartedCall, decoding decode: ([UInt8]) -> Decoded?) throws(Failure)
        -> Read<Decoded>
    {
        let bytes = try turn.withLock { _ throws(Failure) in
            switch call {
            case .notSent: throw Self.wentAway
            case .sent: return try replyBytes(until: .now + timeout)
            case .waited: return try replyBytes(until: .now)
            }
        }
        return try read(bytes, decoding: decode)
    }

    private static let wentAway = Failure.connection("the service went away")

    /// Calls `method` with `oneway`: the service sends no reply, and none is waited for.
    public func callOneway(_ method: String, _ parameters: [(key: String, value: VarlinkValue)] = []) throws(Failure) {
        try turn.withLock { _ throws(Failure) in
            try send(method, parameters, flags: [("oneway", .bool(true))])
        }
    }

    /// Calls `method` with `more` and hands each reply's parameters to `body` until the service
    /// sends its last reply or `body` returns false (the connection is then closed: varlink has
    /// no other way to stop a call).
    public func callMore(
        _ method: String, _ parameters: [(key: String, value: VarlinkValue)] = [],
        _ body: (VarlinkValue) -> Bool
    ) throws(Failure) {
        try turn.withLock { _ throws(Failure) in
            try send(method, parameters, flags: [("more", .bool(true))])
            while true {
                // A stream's next reply comes when the service has news: no deadline.
                let reply = try reply(try replyBytes(until: nil))
                guard body(reply.parameters), reply.continues else {
                    if reply.continues { connection.close() }
                    return
                }
            }
        }
    }

    private func send(
        _ method: String, _ parameters: [(key: String, value: VarlinkValue)],
        flags: [(key: String, value: VarlinkValue)]
    ) throws(Failure) {
        let call = VarlinkValue.object([("method", .string(method)), ("parameters", .object(parameters))] + flags)
        let message = call.message()
        guard message.withUnsafeBytes({ connection.write($0) }) else { throw Self.wentAway }
    }

    /// The next reply's bytes, without the NUL that ends it.
    private func replyBytes(until deadline: ContinuousClock.Instant?) throws(Failure) -> [UInt8] {
        switch connection.readLine(limit: Self.replyLimit, until: deadline, terminator: 0) {
        case .line(let line): line
        case .end: throw .connection("the service closed the connection")
        case .timedOut: throw .connection("no reply within \(timeout)")
        case .tooLong: throw .connection("a reply longer than \(Self.replyLimit) bytes")
        case .interrupted: throw .connection("interrupted")
        }
    }

    /// A reply read: its parameters and whether more follow, or the error it carries, thrown.
    private func reply(_ bytes: [UInt8]) throws(Failure) -> (parameters: VarlinkValue, continues: Bool) {
        guard let reply = try? VarlinkMessageReader.read(bytes) else { throw .connection("the reply is not JSON") }
        let parameters = reply["parameters"] ?? .object([])
        if case .string(let name)? = reply["error"] {
            guard case .object(let members) = parameters else { throw .error(VarlinkError(name)) }
            throw .error(VarlinkError(name, members))
        }
        guard case .object = parameters else { throw .connection("the reply's parameters are not an object") }
        if case .bool(true)? = reply["continues"] { return (parameters, true) }
        return (parameters, false)
    }
}
