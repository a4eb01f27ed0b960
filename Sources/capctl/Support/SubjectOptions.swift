import ArgumentParser
import Capabilities
import Glibc
import LinuxBackends

/// `--for-process PID` and `--for-user NAME`: decide for another subject, as `pkcheck --process`
/// and `sudo -l -U` do. Root only; such a check never prompts (another subject's password is
/// not typed on this terminal).
struct SubjectOptions: ParsableArguments {
    @Option(
        name: .customLong("for-process"), help: ArgumentHelp("Decide for this process (root only).", valueName: "pid"))
    var process: Int32?

    @Option(name: .customLong("for-user"), help: ArgumentHelp("Decide for this user (root only).", valueName: "name"))
    var user: String?

    func validate() throws {
        if process != nil, user != nil { throw ValidationError("give --for-process or --for-user, not both") }
    }

    /// The subject named, or nil for this process.
    func subject() throws -> Subject? {
        try Self.subject(process: process, user: user)
    }

    /// The subject of `--for-process` or `--for-user` (or `run --as-user`), or nil for neither.
    static func subject(process: Int32?, user: String?) throws -> Subject? {
        guard process != nil || user != nil else { return nil }
        guard geteuid() == 0 else {
            throw CommandFailure(
                message: "capctl: --for-process and --for-user decide for someone else, which only root may ask",
                status: ExitStatus.refused)
        }
        do throws(SubjectError) {
            if let process { return try Subject.process(process) }
            return try Subject.user(named: user!)
        } catch {
            throw CommandFailure(message: "capctl: \(error)", status: ExitStatus.usage)
        }
    }
}
