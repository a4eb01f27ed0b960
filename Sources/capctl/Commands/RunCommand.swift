import ArgumentParser
import CLinuxSupport
import Foundation
import Glibc

/// `capctl run GATE -- COMMAND`: runs the command only if the gate holds.
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a command only if a gate holds, and exit with its status.",
        discussion: """
            When the gate holds, capctl replaces itself with the command (exec), which then has its own signals, \
            exit status and standard input. When the gate does not hold, prints why and exits 77 (EX_NOPERM) \
            without running the command. A command that is not found exits 127; one that cannot be executed, 126.
            """
    )

    @OptionGroup var options: CommonOptions

    @Argument(help: "The gate's name.")
    var gate: String

    @OptionGroup var prompt: PromptOptions

    @OptionGroup var flagContext: FlagContextOptions

    @Argument(parsing: .postTerminator, help: "The command and its arguments, after --.")
    var command: [String] = []

    func validate() throws {
        guard !command.isEmpty else {
            throw ValidationError("give the command after --, for example: capctl run backup -- /usr/bin/backup --full")
        }
    }

    func run() async throws {
        let outcome = try await CheckCommand.evaluate(
            gate: gate, options: options, prompting: !prompt.noPrompt, context: try flagContext.evaluationContext(),
            policyOptions: prompt.password.policyOptions)
        guard outcome.exit == ExitStatus.satisfied else {
            var message =
                "capctl: not running \(command[0]): gate \(gate) is \(outcome.status)\n"
                + CheckCommand.tree(outcome.explanation, explainAll: false)
            message += "\n"
            FileHandle.standardError.write(Data(message.utf8))
            throw ExitStatus.refused
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
        let message = "capctl: cannot run \(command[0]): \(String(cString: strerror(code)))\n"
        _ = message.utf8CString.withUnsafeBufferPointer { write(STDERR_FILENO, $0.baseAddress, $0.count - 1) }
        Glibc.exit(status)
    }
}
