public import ArgumentParser
import CapabilityPolicy
import Glibc
import LinuxBackends
import LinuxPolicy

/// The `capctl` command: shows, checks, explains and uses capabilities, flags and gates.
public struct Capctl: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "capctl",
        abstract: "Show, check, explain and use capabilities, feature flags and gates.",
        discussion: """
            Policy files are read from /usr/share/capctl, /etc/capctl and /run/capctl (each with \
            policy.yaml and policy.d/*.yaml, later ones replacing earlier definitions) and \
            $XDG_CONFIG_HOME/capctl; CAPCTL_POLICY_ROOTS replaces the system roots; --policy \
            replaces the search.

            Exit statuses: 0 a gate holds, a capability is authorized; 1 a gate fails or is \
            undecided, a capability is denied or unavailable; 2 it would ask someone (with \
            --non-interactive); 3 the prompt was dismissed; 64 usage error; 77 run refused; 78 policy \
            or flag file error.
            """,
        version: BuildVersion.description,
        subcommands: [
            StatusCommand.self, CheckCommand.self, AuthorizeCommand.self, RunCommand.self, FlagsCommand.self,
            ValidateCommand.self, WatchCommand.self, SchemaCommand.self,
        ]
    )

    public init() {}

    /// Runs the command line, with capctl's exit statuses.
    public static func runMain() async {
        do {
            if let request = fastCheckRequest() {
                try await request.run()
            } else {
                var command = try parseAsRoot()
                if var asynchronous = command as? AsyncParsableCommand {
                    try await asynchronous.run()
                } else {
                    try command.run()
                }
            }
        } catch let failure as CommandFailure {
            if wantsJSON {
                writeError(
                    CommandFailure.json(lines: failure.lines, status: failure.status.rawValue, details: failure.details)
                )
            } else {
                writeError(failure.message)
            }
            finish(failure.status.rawValue)
        } catch let code as ExitCode {
            // The command has said what it had to on standard output.
            finish(code.rawValue)
        } catch {
            let status = exitCode(for: error)
            // Help and --version print as usual.
            guard status != .success else { exit(withError: error) }
            if wantsJSON {
                let lines = fullMessage(for: error).split(separator: "\n").map(String.init).filter { !$0.isEmpty }
                writeError(CommandFailure.json(lines: lines, status: status.rawValue))
            } else {
                writeError(fullMessage(for: error))
            }
            finish(status.rawValue)
        }
        finish(0)
    }

    /// `capctl check` in one of its common forms, read without the argument parser (see
    /// ``CheckRequest``), or nil.
    private static func fastCheckRequest() -> CheckRequest? {
        let arguments = CommandLine.arguments.dropFirst()
        guard arguments.first == "check" else { return nil }
        return CheckRequest(fastParsing: Array(arguments.dropFirst()))
    }

    /// Exits with `status`, or with what it means to systemd under `check --exec-condition`.
    ///
    /// Read from the command line itself, not from a parsed request: a command line that does not
    /// parse (a misspelt subcommand or option, `--exec-condition=yes`) has none, and its usage
    /// error (64) would read as "skip the unit" to systemd. So wherever the option is spelled before
    /// a `--` (after which a `run` command's own arguments stand), any status but 0 and 1 is 255.
    private static func finish(_ status: Int32) -> Never {
        let arguments = CommandLine.arguments.dropFirst().prefix { $0 != "--" }
        let asCondition = arguments.contains { $0 == "--exec-condition" || $0.hasPrefix("--exec-condition=") }
        Glibc.exit(asCondition ? CheckCommand.execConditionStatus(status) : status)
    }

    /// Whether the command line asks for JSON (before any `--`), so that errors are JSON too,
    /// including those found while the command line itself is parsed.
    static var wantsJSON: Bool {
        CommandLine.arguments.dropFirst().prefix { $0 != "--" }.contains("--json")
    }

    private static func writeError(_ text: String) {
        var bytes = Array((text + "\n").utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { return }
            bytes = bytes.dropFirst(written)
        }
    }

    /// A warning on standard error: `capctl: warning: TEXT`, or `{"warning": TEXT}` under --json.
    static func warn(_ text: String) {
        writeError(
            wantsJSON
                ? JSONText.string(.structure(["warning": .string(text)]))
                : "capctl: warning: " + TerminalText.escaped(text))
    }
}
