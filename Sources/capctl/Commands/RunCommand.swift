import ArgumentParser
import CLinuxSupport
import Glibc
import LinuxBackends

/// `capctl run GATE -- COMMAND`: runs the command only if the gate holds.
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a command only if a gate holds, and exit with its status.",
        discussion: """
            When the gate holds, capctl replaces itself with the command (exec), which then has its own signals, \
            exit status and standard input. When the gate does not hold, prints why and exits 77 (EX_NOPERM) \
            without running the command. A command that is not found exits 127; one that cannot be executed, 126. \
            With --capabilities, the command starts with exactly those Linux capabilities (bounding, inheritable \
            and ambient sets, as systemd's CapabilityBoundingSet= and AmbientCapabilities=), whether or not it runs \
            as root; capctl refuses (exit 77) when it cannot grant them. With --as-user NAME (root only), the gate \
            is decided for that user without prompting, and the command runs as the user, as runuser -l does: \
            the user's groups and ids, a fresh environment (HOME, SHELL, USER, LOGNAME, PATH; TERM, LANG and \
            LC_ALL kept), the home directory, and no Linux capabilities.
            """
    )

    @OptionGroup var options: CommonOptions

    @Argument(help: "The gate's name.")
    var gate: String

    @OptionGroup var prompt: PromptOptions

    @OptionGroup var flagContext: FlagContextOptions

    @Option(
        name: .customLong("capabilities"),
        help: ArgumentHelp(
            "Start the command with only these Linux capabilities (comma-separated, such as CAP_NET_BIND_SERVICE; empty for none).",
            valueName: "LIST"))
    var capabilities: String?

    @Option(
        name: .customLong("as-user"),
        help: ArgumentHelp(
            "Decide the gate for this user and run the command as the user (root only).", valueName: "name"))
    var asUser: String?

    @Argument(parsing: .postTerminator, help: "The command and its arguments, after --.")
    var command: [String] = []

    func validate() throws {
        guard !command.isEmpty else {
            throw ValidationError("give the command after --, for example: capctl run backup -- /usr/bin/backup --full")
        }
        _ = try capabilitySet()
        if asUser != nil, let set = try capabilitySet(), !set.capabilityNames.isEmpty {
            throw ValidationError(
                "--as-user starts the command without capabilities; --capabilities cannot add any to it")
        }
    }

    /// The set --capabilities names, or nil when it is not given.
    private func capabilitySet() throws -> LinuxCapabilitySet? {
        guard let capabilities else { return nil }
        let names = capabilities.split(separator: ",").map { String($0.trimming([" ", "\t"])) }
        do throws(LinuxCapabilitySet.CapabilityNameError) {
            return try LinuxCapabilitySet(names: names.filter { !$0.isEmpty })
        } catch {
            throw ValidationError(error.description)
        }
    }

    func run() async throws {
        let subject = try SubjectOptions.subject(process: nil, user: asUser)
        let outcome = try await CheckCommand.evaluate(
            gate: gate, policyFiles: options.policy, allowingInteraction: prompt.allowsInteraction && subject == nil,
            context: try flagContext.evaluationContext(), policyOptions: prompt.password.policyOptions(purpose: gate),
            subject: subject)
        outcome.audit(action: "run", gate: gate, subject: subject, command: command)
        guard outcome.verdict == .authorized else {
            let headline = "capctl: not running \(command[0]): gate \(gate): \(outcome.verdict.gateWord)"
            throw CommandFailure(
                escaped: TerminalText.escaped(headline) + "\n"
                    + CheckCommand.tree(outcome.explanation, explainAll: false),
                lines: [headline], status: ExitStatus.refused,
                details: [
                    "gate": .string(gate), "status": .string(outcome.verdict.gateWord),
                    "explanation": CheckCommand.json(outcome.explanation),
                ])
        }
        if let set = try capabilitySet() {
            do throws(LinuxCapabilitySet.ConfinementError) {
                try set.confineProcess()
            } catch {
                throw CommandFailure(
                    message: "capctl: not running \(command[0]) with capabilities \(set): \(error)",
                    status: ExitStatus.refused)
            }
        }
        if let asUser {
            do throws(UserSwitch.Failure) {
                try UserSwitch.become(asUser)
            } catch {
                throw CommandFailure(message: "capctl: not running \(command[0]): \(error)", status: ExitStatus.refused)
            }
        }
        Self.execute(command)
    }

    /// Replaces capctl with the command, so signals, job control and the exit status are the
    /// command's own: every signal at its default action and unblocked, and no descriptor of
    /// capctl's but standard input, output and error left open. Returns only on failure, with a
    /// shell's statuses: 127 when the command is not found, 126 when it cannot be executed.
    static func execute(_ command: [String]) -> Never {
        fflush(nil)
        var arguments: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) }
        arguments.append(nil)
        let code = clinux_exec_clean(command[0], &arguments)
        let status: Int32 = code == ENOENT || code == ENOTDIR ? 127 : 126
        let reason = "capctl: cannot run \(command[0]): \(String(cString: strerror(code)))"
        let message =
            (Capctl.wantsJSON
                ? CommandFailure.json(lines: [reason], status: status) : TerminalText.escaped(reason)) + "\n"
        _ = message.utf8CString.withUnsafeBufferPointer { write(STDERR_FILENO, $0.baseAddress, $0.count - 1) }
        Glibc.exit(status)
    }
}
