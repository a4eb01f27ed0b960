import ArgumentParser
import Capabilities
import FeatureFlags

/// capctl's exit statuses, documented in Docs/capctl.md; ``Verdict`` chooses among the first four.
enum ExitStatus {
    /// Everything asked about is satisfied or authorized.
    static let satisfied = ExitCode(0)
    /// Denied, unavailable or undecided.
    static let denied = ExitCode(1)
    /// It would need authorization (notDetermined), and prompting was not allowed.
    static let needsInteraction = ExitCode(2)
    /// The person dismissed the prompt.
    static let dismissed = ExitCode(3)
    /// Bad usage: an unknown name or option.
    static let usage = ExitCode(64)
    /// `run` refused to run the command (EX_NOPERM).
    static let refused = ExitCode(77)
    /// A policy or flag file is broken (EX_CONFIG).
    static let configuration = ExitCode(78)
    /// capctl's own fault (EX_SOFTWARE): its front cannot load its commands, or the two disagree.
    static let software = ExitCode(70)

}

/// A failure that ends the command with a message on standard error and an exit status. Every
/// line is escaped for the terminal (``TerminalText``): messages carry paths, names and reasons.
struct CommandFailure: Error, CustomStringConvertible {
    /// The text for standard error, escaped.
    let message: String
    let status: ExitCode
    /// The lines as given (unescaped), for `--json`.
    let lines: [String]
    /// What `--json` adds to the error object (a refused gate's explanation, say).
    var details: [String: FlagValue] = [:]
    var description: String { message }

    /// One message, which must be one line: any newline in it is shown escaped.
    init(message: String, status: ExitCode, details: [String: FlagValue] = [:]) {
        self.message = TerminalText.escaped(message)
        self.status = status
        self.lines = [message]
        self.details = details
    }

    /// One line each.
    init(lines: [String], status: ExitCode) {
        self.message = TerminalText.lines(lines)
        self.status = status
        self.lines = lines
    }

    /// A message whose lines are escaped already (a gate's explanation tree), for `lines`.
    init(escaped message: String, lines: [String], status: ExitCode, details: [String: FlagValue] = [:]) {
        self.message = message
        self.status = status
        self.lines = lines
        self.details = details
    }

    /// `{"error": FIRST LINE, "errors": [LINES], "exitStatus": N, ...details}`, one line, for standard
    /// error under `--json`, as systemd's tools and kubectl report errors to programs.
    static func json(lines: [String], status: Int32, details: [String: FlagValue] = [:]) -> String {
        var members = details
        members["error"] = .string(lines.first ?? "")
        members["errors"] = .list(lines.map(FlagValue.string))
        members["exitStatus"] = .number(Double(status))
        return JSONText.string(.structure(members))
    }
}
