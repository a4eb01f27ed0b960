import Locking
public import Logging

/// A logger whose messages a test can read: level and text, in order.
public final class LogCapture: Sendable {
    private let entries = Lock<[(level: Logger.Level, message: String)]>([])

    public init() {}

    /// A logger writing here at `level` and above.
    public func logger(level: Logger.Level = .trace) -> Logger {
        var logger = Logger(label: "test") { _ in Handler(capture: self) }
        logger.logLevel = level
        return logger
    }

    /// The messages logged at `level`.
    public func messages(at level: Logger.Level) -> [String] {
        entries.withLock { $0.filter { $0.level == level }.map(\.message) }
    }

    fileprivate func record(_ level: Logger.Level, _ message: String) {
        entries.withLock { $0.append((level, message)) }
    }

    private struct Handler: LogHandler {
        let capture: LogCapture
        var logLevel: Logger.Level = .trace
        var metadata: Logger.Metadata = [:]

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            capture.record(event.level, "\(event.message)")
        }
    }
}
