public import ArgumentParser
import CapabilityPolicy
import Glibc
import LinuxBackends
import LinuxPolicy
import Plumbing

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

            When capctld listens at /run/capctl/capctld.sock (or CAPCTL_DAEMON_SOCKET; empty: never), \
            check, status, watch and authorize ask it for the gates of the system's layers, unless \
            --policy, CAPCTL_POLICY_ROOTS, --context or --targeting-key is given; --explain and \
            --json say which decided.

            Exit statuses: 0 a gate holds, a capability is authorized; 1 a gate fails or is \
            undecided, a capability is denied or unavailable; 2 it would ask someone (with \
            --non-interactive); 3 the prompt was dismissed; 64 usage error; 70 capctl's own fault \
            (its commands could not be loaded); 77 run refused; 78 policy or flag file error.
            """,
        version: BuildVersion.description,
        subcommands: [
            StatusCommand.self, CheckCommand.self, AuthorizeCommand.self, RunCommand.self, FlagsCommand.self,
            ValidateCommand.self, WatchCommand.self, SchemaCommand.self, ExplainCommand.self, AnalyzeCommand.self,
            TestCommand.self, DiffCommand.self, ReplayCommand.self,
            PolkitDecideCommand.self,
        ]
    )

    public init() {}

    /// Runs `capctl check` in its common forms on the calling thread (the main thread), its
    /// tasks there too, and exits; returns for any other command line, which ``runMain()`` reads.
    public static func runFastCheckOnThisThread() {
        guard let request = fastCheckRequest() else { return }
        TaskWait.value { await run(fastCheck: request) }
    }

    /// Runs the command line, with capctl's exit statuses.
    public static func runMain() async {
        await run(fastCheck: fastCheckRequest())
    }

    /// Finishes the check capctl's front began (`capctl_check_sent`), on this thread, and exits.
    static func runStartedCheck(_ started: StartedCheck) -> Never {
        let request = fastCheckRequest()
        TaskWait.value { await run(fastCheck: request, started: started) }
    }

    /// Runs `request` when the command line is a check the fast reader took, otherwise the
    /// command line through the argument parser. Never returns. With `started`, the check was
    /// begun by capctl's front.
    private static func run(fastCheck request: CheckRequest?, started: StartedCheck? = nil) async -> Never {
        // How capctl ends (JSON errors, systemd's statuses) is the parsed request's to say; until
        // there is one, and for a command line that never parses, the one reading of it made at
        // start (``Invocation/commandLine``).
        var ending = Invocation.commandLine
        do {
            if let request {
                ending = Invocation(request)
                try await request.run(started: started)
            } else if let started {
                try? started.connection.close()
                throw CommandFailure(
                    message: "capctl: capctl's front began a check of a command line capctl does not read as one",
                    status: ExitStatus.software)
            } else {
                var command = try parseAsRoot()
                if let check = command as? CheckCommand { ending = Invocation(check.request) }
                if var asynchronous = command as? AsyncParsableCommand {
                    try await asynchronous.run()
                } else {
                    try command.run()
                }
            }
        } catch let failure as CommandFailure {
            if ending.json {
                writeError(
                    CommandFailure.json(lines: failure.lines, status: failure.status.rawValue, details: failure.details)
                )
            } else {
                writeError(failure.message)
            }
            finish(failure.status.rawValue, ending)
        } catch let code as ExitCode {
            // The command has said what it had to on standard output.
            finish(code.rawValue, ending)
        } catch {
            let status = exitCode(for: error)
            // Help and --version print as usual.
            guard status != .success else { exit(withError: error) }
            if ending.json {
                let lines = fullMessage(for: error).split(separator: "\n").map(String.init).filter { !$0.isEmpty }
                writeError(CommandFailure.json(lines: lines, status: status.rawValue))
            } else {
                writeError(fullMessage(for: error))
            }
            finish(status.rawValue, ending)
        }
        finish(0, ending)
    }

    /// `capctl check` in one of its common forms, read without the argument parser (see
    /// ``CheckRequest``), or nil.
    private static func fastCheckRequest() -> CheckRequest? {
        let arguments = CommandLine.arguments.dropFirst()
        guard arguments.first == "check" else { return nil }
        return CheckRequest(fastParsing: Array(arguments.dropFirst()))
    }

    /// Exits with `status`, or with what it means to systemd under `check --exec-condition`.
    private static func finish(_ status: Int32, _ ending: Invocation) -> Never {
        Glibc.exit(ending.execCondition ? CheckCommand.execConditionStatus(status) : status)
    }

    /// Whether errors and warnings are JSON: the command line asks for it (before any `--`).
    static var wantsJSON: Bool { Invocation.commandLine.json }

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

/// What capctl's command line asks of how it ends: JSON errors, and systemd's `ExecCondition=`
/// statuses.
struct Invocation {
    var json: Bool
    var execCondition: Bool

    /// The one reading of the command line itself, made when capctl starts: for errors found
    /// while it is parsed, and for one that never parses. A misspelt subcommand or option, or
    /// `--exec-condition=yes`, has no parsed request, and its usage error (64) would read as "skip
    /// the unit" to systemd; so wherever `--exec-condition` is spelled before a `--` (after which
    /// a `run` command's own arguments stand), any status but 0 and 1 is 255.
    static let commandLine: Invocation = {
        let arguments = CommandLine.arguments.dropFirst().prefix { $0 != "--" }
        return Invocation(
            json: arguments.contains("--json"),
            execCondition: arguments.contains { $0 == "--exec-condition" || $0.hasPrefix("--exec-condition=") })
    }()

    init(json: Bool, execCondition: Bool) {
        (self.json, self.execCondition) = (json, execCondition)
    }

    /// What a parsed `check` request asks.
    init(_ request: CheckRequest) {
        self.init(json: request.json, execCondition: request.execCondition)
    }
}
