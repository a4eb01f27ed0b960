package import Capabilities
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
/// (``failedWrites``), and the program says so: capctl warns on standard error, and a service
/// passes `onLostRecords`, which hears of the first lost record at once and of later ones at most
/// once a minute. A service deciding for many users bounds what each can write
/// (``AuditUserLimit``), so one user's calls cannot make the journal drop another's records.
///
/// ```swift
/// let trail = AuditTrail(level: .all, destination: .syslog(path: "/dev/log"), identifier: "myservice")
/// trail.record(AuditRecord(action: "export", gate: "export", outcome: .fails, reasons: "not in group backup"))
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
    /// What each user's decisions may write, when bounded.
    public let limitPerUser: AuditUserLimit?
    private let journal: SystemJournal?
    private let syslog: LogSocket
    private let onLostRecords: (@Sendable (String) -> Void)?
    private let state: Lock<State>

    /// What changes as records are written.
    private struct State {
        var windows: AuditUserWindows?
        /// Records that reached no receiver: all of them, and those not said yet.
        var lost = 0
        var lostUnsaid = 0
        var lostLastSaid: ContinuousClock.Instant?
    }

    /// How often lost records are said at most, after the first.
    static let lossNoticeInterval = Duration.seconds(60)

    /// A trail recording the decisions `level` asks for, to `destination`.
    /// - Parameters:
    ///   - level: Which decisions are recorded.
    ///   - destination: Where records go.
    ///   - identifier: The program name records carry.
    ///   - limitPerUser: What each user's decisions may write (nil: no bound), past which they are
    ///     summarized; ``flush(all:)`` writes the summaries of intervals that ended.
    ///   - onLostRecords: Told when records reached no receiver: at the first at once, then at
    ///     most once a minute (and at ``flush(all:)``), with a line to log where the audit trail is not.
    public convenience init(
        level: AuditLevel = .all, destination: Destination = .system, identifier: String = "capctl",
        limitPerUser: AuditUserLimit? = nil, onLostRecords: (@Sendable (String) -> Void)? = nil
    ) {
        switch destination {
        case .system:
            self.init(
                level: level, journalPath: SystemJournal.socketPath, syslogPath: "/dev/log", identifier: identifier,
                destination: destination, limitPerUser: limitPerUser, onLostRecords: onLostRecords)
        case .syslog(let path):
            self.init(
                level: level, journalPath: nil, syslogPath: path, identifier: identifier, destination: destination,
                limitPerUser: limitPerUser, onLostRecords: onLostRecords)
        }
    }

    /// A trail to the journal at `journalPath` (none when nil), else the syslog socket at
    /// `syslogPath`: the system's destination, with other paths for tests.
    package init(
        level: AuditLevel, journalPath: String?, syslogPath: String, identifier: String,
        destination: Destination = .system, limitPerUser: AuditUserLimit? = nil,
        onLostRecords: (@Sendable (String) -> Void)? = nil
    ) {
        self.level = level
        self.destination = destination
        self.identifier = identifier
        self.limitPerUser = limitPerUser
        self.onLostRecords = onLostRecords
        journal = journalPath.map(SystemJournal.init(path:))
        syslog = LogSocket(path: syslogPath)
        state = Lock(State(windows: limitPerUser.map(AuditUserWindows.init(limit:))))
    }

    /// Why no record would reach a log now (nobody listens where they go), or nil when one
    /// would: for a daemon to say at its start, rather than lose every record without a word.
    public var unreachableReason: String? {
        if journal?.hasReceiver == true || syslog.hasReceiver { return nil }
        switch destination {
        case .system:
            return "neither the journal (\(SystemJournal.socketPath)) nor a system log (\(syslog.path)) listens"
        case .syslog(let path):
            return "no system log listens at \(path)"
        }
    }

    /// The identifier of capctl's decision records in the journal (`MESSAGE_ID`), so
    /// `journalctl MESSAGE_ID=…` finds every one whatever program made it.
    public static let journalMessageID = "4f1c7a9e2b6d4c38a5e0d9b7c3f18a26"

    /// How many records reached no receiver: no log listens, or it stayed full.
    public var failedWrites: Int { state.withLock { $0.lost } }

    /// Records `record` when the level asks for it (and, with ``limitPerUser``, when its user has
    /// not written its share of the interval; else it is counted for the user's summary).
    /// - Returns: false when a record was to be written and reached no receiver.
    @discardableResult
    public func record(_ record: AuditRecord) -> Bool {
        self.record(outcome: record.outcome, subject: record.subject) { record }
    }

    /// ``record(_:)`` of the record `make` makes, made only when it is written: a decision of a
    /// user past its share (``limitPerUser``) is counted by its outcome and subject alone, as a
    /// service deciding thousands a second must not build records it drops.
    @discardableResult
    package func record(outcome: AuditRecord.Outcome, subject: Subject?, _ make: () -> AuditRecord) -> Bool {
        switch level {
        case .off: return true
        case .denials where outcome == .holds: return true
        default: break
        }
        let uid = subject?.uid ?? geteuid()
        let now = ContinuousClock.now
        let (write, summary) = state.withLock { state -> (Bool, AuditRecord?) in
            guard state.windows != nil else { return (true, nil) }
            return state.windows!.admit(outcome: outcome, subject: subject, uid: uid, at: now)
        }
        var delivered = summary.map(send) ?? true
        if write { delivered = send(make()) && delivered }
        return delivered
    }

    /// Writes the summaries of users' intervals that have ended (every one when `all`, as a
    /// service stops), and says lost records not said yet when a minute has passed since the last
    /// notice (at once when `all`). A service calls it now and then.
    public func flush(all: Bool = false) {
        let now = ContinuousClock.now
        let summaries = state.withLock { $0.windows?.due(at: now, all: all) ?? [] }
        for summary in summaries { send(summary) }
        let notice = state.withLock { state -> String? in
            guard state.lostUnsaid > 0,
                all || state.lostLastSaid.map({ now - $0 >= Self.lossNoticeInterval }) ?? true
            else { return nil }
            return Self.lossNotice(&state, at: now)
        }
        if let notice { onLostRecords?(notice) }
    }

    /// Counts a record that reached no receiver, and says so when it is time.
    private func lost() {
        let now = ContinuousClock.now
        let notice = state.withLock { state -> String? in
            state.lost += 1
            state.lostUnsaid += 1
            guard state.lostLastSaid.map({ now - $0 >= Self.lossNoticeInterval }) ?? true else { return nil }
            return Self.lossNotice(&state, at: now)
        }
        if let notice { onLostRecords?(notice) }
    }

    private static func lossNotice(_ state: inout State, at now: ContinuousClock.Instant) -> String {
        defer {
            state.lostUnsaid = 0
            state.lostLastSaid = now
        }
        return
            "\(state.lostUnsaid) audit record(s) reached no log (none listens, or it stayed full for \(sendTimeoutMilliseconds) ms); \(state.lost) since start"
    }

    /// Sends one record to the journal, else the system log; false (and counted) when neither took it.
    @discardableResult
    private func send(_ record: AuditRecord) -> Bool {
        let fields = record.fields
        let severity = record.outcome == .holds ? 5 : 4
        if let journal {
            let entry =
                [
                    ("MESSAGE", Self.message(fields)), ("MESSAGE_ID", Self.journalMessageID),
                    ("PRIORITY", String(severity)), ("SYSLOG_FACILITY", "10"), ("SYSLOG_IDENTIFIER", identifier),
                ] + fields
            switch journal.send(entry) {
            case .delivered: return true
            case .full:
                // Waited once already; where journald runs, /dev/log is its too.
                lost()
                return false
            case .noReceiver, .failed: break
            }
        }
        var line = Array("<\(10 * 8 + severity)>\(identifier)[\(getpid())]: ".utf8)
        Self.appendMessage(fields, to: &line)
        guard syslog.send(line) == .delivered else {
            lost()
            return false
        }
        return true
    }

    /// `KEY="value" ...`. Values are quoted, with `"` and `\` escaped and control characters
    /// written visibly, so a name cannot forge a field or a line.
    static func message(_ fields: [(String, String)]) -> String {
        var bytes: [UInt8] = []
        appendMessage(fields, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// ``message(_:)`` appended to `bytes`, as UTF-8: a record is made for every decision, and
    /// most values are printable ASCII, escaped here byte by byte; any other value goes through
    /// `VisibleText`, which knows every scalar that must be shown escaped.
    static func appendMessage(_ fields: [(String, String)], to bytes: inout [UInt8]) {
        bytes.reserveCapacity(bytes.count + fields.reduce(0) { $0 + $1.0.utf8.count + $1.1.utf8.count + 4 })
        for (index, (key, value)) in fields.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: " ")) }
            bytes.append(contentsOf: key.utf8)
            bytes.append(contentsOf: "=\"".utf8)
            if value.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
                for byte in value.utf8 {
                    if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { bytes.append(UInt8(ascii: "\\")) }
                    bytes.append(byte)
                }
            } else {
                bytes.append(contentsOf: VisibleText.escaped(value, quoting: true).utf8)
            }
            bytes.append(UInt8(ascii: "\""))
        }
    }

    /// The longest a record waits for room in a full log before it is counted as not delivered:
    /// a receiver that stopped reading must never hold a gate.
    public static let sendTimeoutMilliseconds: Int32 = LogSocket.sendTimeoutMilliseconds
}
