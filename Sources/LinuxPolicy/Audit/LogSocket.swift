import CLinuxSupport
import Glibc
import Locking
import SystemPackage

/// A datagram socket connected to a local log (journald's native socket, `/dev/log`), kept
/// between records and connected again once when the log went away (its daemon restarted).
/// Sending never blocks past ``sendTimeoutMilliseconds``, and says what became of the record:
/// a log nobody listens on is told apart from one that is full, so a record that reached no
/// receiver is never counted as delivered.
final class LogSocket: Sendable {
    /// What became of a record.
    enum Delivery: Equatable {
        case delivered
        /// No socket there, or nobody reading it (ENOENT, ECONNREFUSED): another log may take it.
        case noReceiver
        /// The receiver stopped reading: nothing was sent within the bounded wait.
        case full
        /// Any other error.
        case failed
    }

    /// The longest a record waits for room in a full log.
    static let sendTimeoutMilliseconds: Int32 = 1000

    let path: String
    /// None until the first record, and after the log went away. Shared by reference: a record
    /// sends and waits on the connection it took without holding the lock, so records wait side
    /// by side on a full log (each at most its own bound), never one behind another.
    private let connection = Lock<Connection?>(nil)

    /// A connected socket, closed when the last record using it lets go.
    private final class Connection: Sendable {
        let descriptor: FileDescriptor
        init(_ descriptor: FileDescriptor) { self.descriptor = descriptor }
        deinit { try? descriptor.close() }
    }

    init(path: String) {
        self.path = path
    }

    /// Whether a receiver listens now: connects (keeping the connection for the first record)
    /// without sending anything.
    var hasReceiver: Bool {
        connection.withLock { kept in
            if kept != nil { return true }
            let made = clinux_unix_socket(path, Int32(SOCK_DGRAM.rawValue), CLINUX_UNIX_CONNECT)
            guard made >= 0 else { return false }
            kept = Connection(FileDescriptor(rawValue: made))
            return true
        }
    }

    /// Sends `bytes` as one datagram (records are bounded to fit one: `AuditRecord.maximumField`).
    func send(_ bytes: [UInt8]) -> Delivery {
        deliver { descriptor in
            let sent = bytes.withUnsafeBytes {
                Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
            }
            return sent == bytes.count ? 0 : (sent < 0 ? errno : EIO)
        }
    }

    /// Runs `attempt` (0, or an errno) on the kept connection: once more after waiting for room
    /// when the log is full, and once on a new connection when the old one went away.
    private func deliver(_ attempt: (Int32) -> Int32) -> Delivery {
        var code: Int32 = 0
        for _ in 0..<2 {
            let taken = connection.withLock { kept -> (Connection?, Delivery) in
                if let kept { return (kept, .delivered) }
                let made = clinux_unix_socket(path, Int32(SOCK_DGRAM.rawValue), CLINUX_UNIX_CONNECT)
                guard made >= 0 else {
                    return (nil, [ENOENT, ECONNREFUSED, ENOTDIR, EACCES].contains(-made) ? .noReceiver : .failed)
                }
                let connection = Connection(FileDescriptor(rawValue: made))
                kept = connection
                return (connection, .delivered)
            }
            // No connection: the second part says why.
            guard let current = taken.0 else { return taken.1 }
            code = attempt(current.descriptor.rawValue)
            if code == EAGAIN || code == EWOULDBLOCK {
                var waiting = pollfd(fd: current.descriptor.rawValue, events: Int16(POLLOUT), revents: 0)
                guard poll(&waiting, 1, Self.sendTimeoutMilliseconds) == 1 else { return .full }
                code = attempt(current.descriptor.rawValue)
                if code == EAGAIN || code == EWOULDBLOCK { return .full }
            }
            switch code {
            case 0: return .delivered
            case EMSGSIZE: return .failed
            default:
                // The receiver went away (ECONNREFUSED, ENOTCONN): connect again, once.
                connection.withLock { kept in if kept === current { kept = nil } }
            }
        }
        return [ECONNREFUSED, ENOTCONN, ENOENT].contains(code) ? .noReceiver : .failed
    }
}
