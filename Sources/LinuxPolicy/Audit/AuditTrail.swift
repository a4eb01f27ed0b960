public import CapabilityPolicy
import ConfigurationFiles
import Glibc
import Locking

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
        /// The journal when one listens here (`/run/systemd/journal/socket`), else the system log
        /// at `/dev/log`. A full journal is not left for `/dev/log`: the record is not delivered.
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
    private let syslog: LogSocket
    private let failures = Lock(0)

    /// A trail recording the decisions `level` asks for, to `destination`.
    public convenience init(level: AuditLevel = .all, destination: Destination = .system, identifier: String = "capctl")
    {
        switch destination {
        case .system:
            self.init(
                level: level, journalPath: SystemJournal.socketPath, syslogPath: "/dev/log", identifier: identifier,
                destination: destination)
        case .syslog(let path):
            self.init(
                level: level, journalPath: nil, syslogPath: path, identifier: identifier, destination: destination)
        }
    }

    /// A trail to the journal at `journalPath` (none when nil), else the syslog socket at
    /// `syslogPath`: the system's destination, with other paths for tests.
    package init(
        level: AuditLevel, journalPath: String?, syslogPath: String, identifier: String,
        destination: Destination = .system
    ) {
        self.level = level
        self.destination = destination
        self.identifier = identifier
        journal = journalPath.map(SystemJournal.init(path:))
        syslog = LogSocket(path: syslogPath)
    }

    /// The identifier of capctl's decision records in the journal (`MESSAGE_ID`), so
    /// `journalctl MESSAGE_ID=…` finds every one whatever program made it.
    public static let journalMessageID = "4f1c7a9e2b6d4c38a5e0d9b7c3f18a26"

    /// How many records reached no receiver: no log listens, or it stayed full.
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
            switch journal.send(entry) {
            case .delivered: return
            case .full:
                // Waited once already; where journald runs, /dev/log is its too.
                failures.withLock { $0 += 1 }
                return
            case .noReceiver, .failed: break
            }
        }
        let line = Array("<\(10 * 8 + severity)>\(identifier)[\(getpid())]: \(message)".utf8)
        if syslog.send(line) != .delivered {
            failures.withLock { $0 += 1 }
        }
    }

    /// `KEY="value" ...`. Values are quoted, with `"` and `\` escaped and control characters
    /// written visibly, so a name cannot forge a field or a line.
    static func message(_ fields: [(String, String)]) -> String {
        fields.map { key, value in "\(key)=\"\(VisibleText.escaped(value, quoting: true))\"" }
            .joined(separator: " ")
    }

    /// The longest a record waits for room in a full log before it is counted as not delivered:
    /// a receiver that stopped reading must never hold a gate.
    public static let sendTimeoutMilliseconds: Int32 = LogSocket.sendTimeoutMilliseconds
}
