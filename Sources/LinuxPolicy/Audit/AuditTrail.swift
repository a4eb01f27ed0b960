import CLinuxSupport
public import CapabilityPolicy
import ConfigurationFiles
import Glibc
import LinuxBackends
import Locking
import SystemPackage

/// Where gate decisions are written for administrators to read later: the systemd journal when
/// it runs here, with each part of a record as a field of its own (`journalctl CAPCTL_GATE=export`),
/// else the system log (`/dev/log`), with facility `authpriv` as sudo and polkit use, one line of
/// `KEY="value"` fields per decision. This is the audit channel; swift-log stays the library's
/// developer logging.
///
/// Writing never changes a decision and never holds one up: a log that is missing, or full for
/// longer than ``sendTimeoutMilliseconds`` (a receiver that stopped reading), is counted
/// (``failedWrites``), and the program says so (capctl warns on standard error).
///
/// ```swift
/// let trail = AuditTrail(level: .all, destination: .syslog(path: "/dev/log"), identifier: "myservice")
/// trail.record(AuditRecord(action: "export", gate: "export", outcome: .denied, reasons: "not in group backup"))
/// ```
public final class AuditTrail: Sendable {
    /// Where records go.
    public enum Destination: Sendable, Equatable {
        /// The journal when it takes the record (it runs here and libsystemd loads), else the
        /// system log at `/dev/log`.
        case system
        /// Only the syslog socket at `path`: a syslog daemon's own, or a test's receiver.
        case syslog(path: String)
    }

    /// Which decisions are recorded.
    public let level: AuditLevel
    /// Where records go.
    public let destination: Destination
    /// The program name records carry (`capctl`).
    public let identifier: String
    private let journal: SystemJournal?
    private let socketPath: String
    private let failures = Lock(0)
    /// A datagram socket connected to the log, kept between records; -1 until the first one.
    private let connection = Lock<Int32>(-1)

    /// A trail recording the decisions `level` asks for, to `destination`.
    public init(level: AuditLevel = .all, destination: Destination = .system, identifier: String = "capctl") {
        self.level = level
        self.destination = destination
        self.identifier = identifier
        switch destination {
        case .system:
            journal = SystemJournal.system
            socketPath = "/dev/log"
        case .syslog(let path):
            journal = nil
            socketPath = path
        }
    }

    /// The identifier of capctl's decision records in the journal (`MESSAGE_ID`), so
    /// `journalctl MESSAGE_ID=…` finds every one whatever program made it.
    public static let journalMessageID = "4f1c7a9e2b6d4c38a5e0d9b7c3f18a26"

    /// How many records could not be written.
    public var failedWrites: Int { failures.withLock { $0 } }

    /// Records `record` when the level asks for it.
    public func record(_ record: AuditRecord) {
        switch level {
        case .off: return
        case .denials where record.outcome == .authorized: return
        default: break
        }
        let fields = record.fields
        let severity = record.outcome == .authorized ? 5 : 4
        let message = Self.message(fields)
        if let journal {
            let entry =
                [
                    ("MESSAGE", message), ("MESSAGE_ID", Self.journalMessageID), ("PRIORITY", String(severity)),
                    ("SYSLOG_FACILITY", "10"), ("SYSLOG_IDENTIFIER", identifier),
                ] + fields
            if journal.send(entry) { return }
        }
        if !send("<\(10 * 8 + severity)>\(identifier)[\(getpid())]: \(message)") {
            failures.withLock { $0 += 1 }
        }
    }

    /// `KEY="value" ...`. Values are quoted, with `"` and `\` escaped and control characters
    /// written visibly, so a name cannot forge a field or a line.
    static func message(_ fields: [(String, String)]) -> String {
        fields.map { key, value in "\(key)=\"\(VisibleText.escaped(value, quoting: true))\"" }
            .joined(separator: " ")
    }

    deinit {
        let descriptor = connection.withLock { $0 }
        if descriptor >= 0 { try? FileDescriptor(rawValue: descriptor).close() }
    }

    /// The longest a record waits for room in a full log before it is counted as not delivered:
    /// a receiver that stopped reading must never hold a gate.
    public static let sendTimeoutMilliseconds: Int32 = 1000

    /// Sends `line` on the kept connection, connecting (again, once) when there is none or the
    /// log went away (a syslog daemon restarted). Never blocks past ``sendTimeoutMilliseconds``.
    private func send(_ line: String) -> Bool {
        let bytes = Array(line.utf8)
        return connection.withLock { descriptor in
            for _ in 0..<2 {
                if descriptor < 0 { descriptor = connect() }
                guard descriptor >= 0 else { return false }
                var sent = bytes.withUnsafeBytes {
                    Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
                }
                if sent < 0, errno == EAGAIN || errno == EWOULDBLOCK {
                    // Full: wait for room, once, for a bounded time; still full, not delivered.
                    var waiting = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                    guard poll(&waiting, 1, Self.sendTimeoutMilliseconds) == 1 else { return false }
                    sent = bytes.withUnsafeBytes {
                        Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
                    }
                    if sent < 0, errno == EAGAIN || errno == EWOULDBLOCK { return false }
                }
                if sent == bytes.count { return true }
                try? FileDescriptor(rawValue: descriptor).close()
                descriptor = -1
            }
            return false
        }
    }

    private func connect() -> Int32 {
        max(-1, clinux_unix_socket(socketPath, Int32(SOCK_DGRAM.rawValue), CLINUX_UNIX_CONNECT))
    }
}
