import ArgumentParser
import Capabilities
import Glibc
import LinuxBackends

/// `--for-process PID,START-TIME,UID` and `--for-user NAME`: decide for another subject, as
/// `pkcheck --process` and `sudo -l -U` do. Root only; such a check never prompts (another
/// subject's password is not typed on this terminal). A bare pid is refused: see
/// ``ProcessReference``.
struct SubjectOptions: ParsableArguments {
    @Option(
        name: .customLong("for-process"),
        help: ArgumentHelp(
            "Decide for this process (root only): its pid, its start time (field 22 of /proc/PID/stat) and its uid, refused unless all three still hold.",
            valueName: "pid,start-time,uid"),
        transform: { text in
            guard let reference = ProcessReference(argument: text) else {
                throw ValidationError(
                    "--for-process takes PID,START-TIME,UID (as pkcheck's --process), not \"\(text)\": a bare pid is decided as whatever process holds it when it is read, and a client that execs a setuid program keeps its pid (CVE-2013-4288). The start time is field 22 of /proc/PID/stat."
                )
            }
            return reference
        })
    var process: ProcessReference?

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
    static func subject(process: ProcessReference?, user: String?) throws -> Subject? {
        guard process != nil || user != nil else { return nil }
        guard geteuid() == 0 else {
            throw CommandFailure(
                message: "capctl: --for-process and --for-user decide for someone else, which only root may ask",
                status: ExitStatus.refused)
        }
        do throws(SubjectError) {
            if let process {
                return try Subject.process(process.pid, startTime: process.startTime, uid: process.uid)
            }
            return try Subject.user(named: user!)
        } catch {
            throw CommandFailure(message: "capctl: \(error)", status: ExitStatus.usage)
        }
    }
}
