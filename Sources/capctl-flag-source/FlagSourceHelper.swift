import ConfigurationFiles
import FeatureFlags
import Glibc
import Locking
import RemoteFlags

/// `capctl-flag-source SETTINGS`: follows one flag service for capctl, which starts it only when a
/// policy names a service, so that the HTTP client (SwiftNIO, TLS, Foundation) is never loaded by
/// a capctl that does not need it (Docs/Performance.md, "Starting capctl").
///
/// The settings are JSON (`RemoteFlagSourceMessage`). Standard input takes one command a line:
/// `start`, `start follow`, `refresh`, `refresh if-due`; its end stops the source and the helper.
/// Standard output gets one line of JSON per event, each with the whole status and the last good
/// document: `started` first, then `loaded`, `confirmed`, `failed` and `expired` as they happen,
/// and `refreshed` when a refresh asked for has ended.
@main
struct FlagSourceHelper {
    static func main() async {
        let arguments = CommandLine.arguments
        guard arguments.count == 2, let settings = try? RemoteFlagSourceMessage.settings(from: arguments[1]) else {
            Output.error("capctl-flag-source: started by capctl, with the flag source's settings as its one argument")
            exit(64)
        }
        let source = HTTPFlagSource(settings)
        Output.send("started", source)
        while let command = readLine() {
            switch command {
            case "start", "start follow":
                source.start(follow: command == "start follow") { event in
                    switch event {
                    case .loaded: Output.send("loaded", source)
                    case .confirmed: Output.send("confirmed", source)
                    case .failed(let error): Output.send("failed", source, error: error)
                    case .expired(let reason): Output.send("expired", source, reason: reason)
                    }
                }
            case "refresh", "refresh if-due":
                await source.refresh(onlyIfDue: command == "refresh if-due")
                Output.send("refreshed", source)
            default:
                Output.error("capctl-flag-source: unknown command")
                exit(64)
            }
        }
        source.stop()
        exit(0)
    }
}

/// Whole lines on standard output, one writer at a time (events come from the source's tasks).
enum Output {
    private static let lock = Lock(())

    static func send(_ event: String, _ source: HTTPFlagSource, error: ConfigurationError? = nil, reason: String? = nil)
    {
        let line = RemoteFlagSourceMessage.encode(
            RemoteFlagSourceMessage.Update(
                event: event, status: source.status, document: source.document, error: error, reason: reason))
        lock.withLock { _ in write(STDOUT_FILENO, line + "\n") }
    }

    static func error(_ text: String) {
        write(STDERR_FILENO, text + "\n")
    }

    private static func write(_ descriptor: Int32, _ text: String) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0, errno == EINTR { continue }
            // capctl is gone: nothing is left to report to.
            guard written > 0 else { exit(0) }
            bytes = bytes.dropFirst(written)
        }
    }
}
