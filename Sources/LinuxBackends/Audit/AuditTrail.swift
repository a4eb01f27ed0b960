import CLinuxSupport
import ConfigurationFiles
import Glibc
import Locking

/// Where gate decisions are written for administrators to read later: the system log, with
/// facility `authpriv` as sudo and polkit use, one line of `KEY="value"` fields per decision.
/// This is the audit channel; swift-log stays the library's developer logging.
///
/// Writing never changes a decision: a log that is missing or full is counted
/// (``failedWrites``) and otherwise ignored.
public final class AuditTrail: Sendable {
    /// Which decisions are recorded.
    public enum Level: String, Sendable, CaseIterable {
        /// None.
        case off
        /// Denied, undecided and dismissed ones.
        case denials
        /// Every one.
        case all
    }

    /// The system log's socket (`/dev/log` unless told otherwise).
    public let socketPath: String
    /// Which decisions are recorded.
    public let level: Level
    /// The program name records carry (`capctl`).
    public let identifier: String
    private let failures = Lock(0)
    /// A datagram socket connected to the log, kept between records; -1 until the first one.
    private let connection = Lock<Int32>(-1)

    /// A trail writing to the syslog socket at `socketPath`.
    public init(level: Level = .all, socketPath: String = "/dev/log", identifier: String = "capctl") {
        self.level = level
        self.socketPath = socketPath
        self.identifier = identifier
    }

    /// How many records could not be written.
    public var failedWrites: Int { failures.withLock { $0 } }

    /// Records `record` when the level asks for it.
    public func record(_ record: AuditRecord) {
        switch level {
        case .off: return
        case .denials where record.outcome == .authorized: return
        default: break
        }
        if !send(Self.line(record, identifier: identifier, severity: record.outcome == .authorized ? 5 : 4)) {
            failures.withLock { $0 += 1 }
        }
    }

    /// `<PRI>capctl[PID]: KEY="value" ...`, facility authpriv (10). Values are quoted, with `"`
    /// and `\` escaped and control characters written visibly, so a name cannot forge a field or a line.
    static func line(_ record: AuditRecord, identifier: String, severity: Int) -> String {
        let fields = record.fields.map { key, value in "\(key)=\"\(VisibleText.escaped(value, quoting: true))\"" }
            .joined(separator: " ")
        return "<\(10 * 8 + severity)>\(identifier)[\(getpid())]: \(fields)"
    }

    deinit {
        let descriptor = connection.withLock { $0 }
        if descriptor >= 0 { close(descriptor) }
    }

    /// Sends `line` on the kept connection, connecting (again, once) when there is none or the
    /// log went away (a syslog daemon restarted).
    private func send(_ line: String) -> Bool {
        let bytes = Array(line.utf8)
        return connection.withLock { descriptor in
            for _ in 0..<2 {
                if descriptor < 0 { descriptor = connect() }
                guard descriptor >= 0 else { return false }
                let sent = bytes.withUnsafeBytes {
                    Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                }
                if sent == bytes.count { return true }
                close(descriptor)
                descriptor = -1
            }
            return false
        }
    }

    private func connect() -> Int32 {
        max(-1, clinux_unix_socket(socketPath, Int32(SOCK_DGRAM.rawValue), CLINUX_UNIX_CONNECT))
    }
}
