import ArgumentParser
import Capabilities

/// capctl's exit statuses, documented in Docs/capctl.md; ``Verdict`` chooses among the first four.
enum ExitStatus {
    /// Everything asked about is satisfied or authorized.
    static let satisfied = ExitCode(0)
    /// Denied, unavailable or undecided.
    static let denied = ExitCode(1)
    /// It would need authorization (notDetermined), and prompting was not allowed.
    static let needsAuthorization = ExitCode(2)
    /// The person dismissed the prompt.
    static let dismissed = ExitCode(3)
    /// Bad usage: an unknown name or option.
    static let usage = ExitCode(64)
    /// `run` refused to run the command (EX_NOPERM).
    static let refused = ExitCode(77)
    /// A policy or flag file is broken (EX_CONFIG).
    static let configuration = ExitCode(78)

}

/// A failure that ends the command with a message on standard error and an exit status. Every
/// line is escaped for the terminal (``TerminalText``): messages carry paths, names and reasons.
struct CommandFailure: Error, CustomStringConvertible {
    let message: String
    let status: ExitCode
    var description: String { message }

    /// One message, which must be one line: any newline in it is shown escaped.
    init(message: String, status: ExitCode) {
        self.message = TerminalText.escaped(message)
        self.status = status
    }

    /// One line each.
    init(lines: [String], status: ExitCode) {
        self.message = TerminalText.lines(lines)
        self.status = status
    }
}
