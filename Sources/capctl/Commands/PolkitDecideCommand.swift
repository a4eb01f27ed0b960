import ArgumentParser
import DecisionService
import LinuxBackends

/// `capctl polkit-decide GATE PID USER`: what the polkit bridge's rules spawn (Docs/Decisions.md,
/// "Programs that ask polkit"). polkit's JavaScript knows the subject's pid and user, not its
/// start time; this reads it, and capctld's CheckForSubject checks that the process still runs
/// as the user polkit named. Prints the decision's outcome word and exits 0; anything else
/// (capctld unreachable, the process gone) is said on standard error with exit 1, which polkit's
/// `spawn` throws and the rules answer NO.
struct PolkitDecideCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "polkit-decide",
        abstract: "Decide a gate through capctld for the subject of a polkit check (the polkit bridge's rules run it).",
        shouldDisplay: false)

    @Argument(help: "The gate.")
    var gate: String

    @Argument(help: "The subject's process id, as polkit names it.")
    var pid: Int32

    @Argument(help: "The subject's user name, as polkit names it.")
    var user: String

    @Option(name: .long, help: "capctld's socket.")
    var socket = DecisionClient.systemSocketPath

    func run() throws {
        guard pid > 0 else { throw ValidationError("the process id must be positive, got \(pid)") }
        guard case .found(let uid) = AccountDatabase.user(named: user) else {
            throw CommandFailure(message: "capctl: polkit-decide: no user \(user)", status: ExitStatus.denied)
        }
        guard let startTime = ProcessFiles.stat(of: String(pid))?.startTime else {
            throw CommandFailure(message: "capctl: polkit-decide: no process \(pid)", status: ExitStatus.denied)
        }
        do throws(DecisionClient.Failure) {
            let decision = try DecisionClient(path: socket).check(
                gate, forProcess: pid, startTime: startTime, uid: uid)
            print(decision.outcome.rawValue)
        } catch {
            throw CommandFailure(
                message: "capctl: polkit-decide: capctld did not decide \(gate): \(error)", status: ExitStatus.denied)
        }
    }
}
