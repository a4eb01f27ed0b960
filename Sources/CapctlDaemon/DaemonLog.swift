import Glibc
import Locking
import Logging

/// capctld's log: one line per message on standard error, `capctld: MESSAGE`, at a level that
/// `io.systemd.service.SetLogLevel` changes while it runs (`notice` until then). Under systemd,
/// whose journal stream standard error then is (`JOURNAL_STREAM`), each line starts with its
/// syslog priority (`<3>`), which journald reads as the entry's priority.
enum DaemonLog {
    static let defaultLevel = Logger.Level.notice
    private static let level = Lock(defaultLevel)

    /// The logger every part of capctld logs through.
    static var logger: Logger { Logger(label: "capctld") }

    /// Bootstraps swift-log with handlers that follow the level set here.
    static func bootstrap() {
        LoggingSystem.bootstrap { _ in Handler() }
    }

    /// Sets the most verbose level logged from a BSD syslog level (0 emergency to 7 debug), or
    /// back to the default for nil.
    static func set(syslogLevel: Int?) {
        let chosen: Logger.Level =
            switch syslogLevel {
            case nil: defaultLevel
            case 0, 1, 2: .critical
            case 3: .error
            case 4: .warning
            case 5: .notice
            case 6: .info
            default: .debug
            }
        level.withLock { $0 = chosen }
    }

    /// Whether standard error is the journal's stream: `JOURNAL_STREAM` names its device and inode.
    static let writesToJournal: Bool = {
        guard let stream = DaemonSettings.variable("JOURNAL_STREAM") else { return false }
        var status = stat()
        guard fstat(STDERR_FILENO, &status) == 0 else { return false }
        return stream == "\(status.st_dev):\(status.st_ino)"
    }()

    /// Writes each message as one line, at the daemon's current level whatever a logger sets.
    struct Handler: LogHandler {
        var metadata: Logger.Metadata = [:]

        var logLevel: Logger.Level {
            get { DaemonLog.level.withLock { $0 } }
            // The level is the daemon's, set by SetLogLevel alone.
            set {}
        }

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let (level, message, metadata) = (event.level, event.message, event.metadata)
            let priority =
                switch level {
                case .critical: 2
                case .error: 3
                case .warning: 4
                case .notice: 5
                case .info: 6
                case .debug, .trace: 7
                }
            let all = self.metadata.merging(metadata ?? [:]) { _, given in given }
            let details =
                all.isEmpty
                ? ""
                : " (" + all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ", ") + ")"
            // One line per message: a line break in it would read as two entries.
            let text = "\(message)\(details)".map { $0 == "\n" ? " " : $0 }
            let prefix = DaemonLog.writesToJournal ? "<\(priority)>" : ""
            FileHandle.standardError.writeWithoutWaiting(prefix + "capctld: " + String(text) + "\n")
        }
    }
}
