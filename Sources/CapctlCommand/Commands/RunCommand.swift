import ArgumentParser
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `capctl run GATE -- COMMAND`: runs the command only if the gate holds.
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a command only if a gate holds, and exit with its status.",
        discussion: "When the gate does not hold, prints why and exits 77 (EX_NOPERM) without running the command."
    )

    @OptionGroup var options: CommonOptions

    @Argument(help: "The gate's name.")
    var gate: String

    @Flag(name: .long, help: "Never ask for authorization.")
    var noPrompt = false

    @Flag(name: .long, help: "Answer a password prompt with one line of standard input instead of the terminal.")
    var passwordStdin = false

    @Argument(parsing: .postTerminator, help: "The command and its arguments, after --.")
    var command: [String] = []

    func validate() throws {
        guard !command.isEmpty else { throw ValidationError("give the command after --, for example: capctl run backup -- /usr/bin/backup --full") }
    }

    func run() async throws {
        let outcome = try await CheckCommand.evaluate(
            gate: gate, options: options, prompting: !noPrompt, policyOptions: .forPrompting(passwordFromStandardInput: passwordStdin))
        guard outcome.exit == ExitStatus.satisfied else {
            var message = "capctl: not running \(command[0]): gate \(gate) is \(outcome.status)\n" + CheckCommand.tree(outcome.explanation, explainAll: false)
            message += "\n"
            FileHandle.standardError.write(Data(message.utf8))
            throw ExitStatus.refused
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.resolve(command[0]))
        process.arguments = Array(command.dropFirst())
        do {
            try process.run()
        } catch {
            throw CommandFailure(message: "capctl: cannot run \(command[0]): \(error.localizedDescription)", status: ExitCode(127))
        }
        process.waitUntilExit()
        if process.terminationReason == .uncaughtSignal { throw ExitCode(128 + process.terminationStatus) }
        throw ExitCode(process.terminationStatus)
    }

    /// A command name looked up in PATH, as a shell would.
    static func resolve(_ name: String) -> String {
        guard !name.contains("/") else { return name }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = directory + "/" + name
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return name
    }
}
