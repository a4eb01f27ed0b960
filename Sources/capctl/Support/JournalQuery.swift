import Glibc
import Plumbing
import SystemPackage

/// Records read from the journal with journalctl, for `capctl replay DECISION-ID`.
enum JournalQuery {
    static let journalctl = "/usr/bin/journalctl"

    /// The `journalctl -o json` lines of the entries whose CAPCTL_DECISION_ID is `decisionID`
    /// (32 hexadecimal digits, checked by the caller: nothing else reaches the command line).
    static func entries(decisionID: String) throws -> [String] {
        guard access(journalctl, X_OK) == 0 else {
            throw CommandFailure(
                message:
                    "capctl: a decision id is looked up with \(journalctl), which is not here; give the record itself",
                status: ExitStatus.usage)
        }
        guard let (reader, writer) = try? FileDescriptor.socketPair() else {
            throw CommandFailure(message: "capctl: cannot make a socket pair for journalctl", status: ExitStatus.usage)
        }
        defer { try? reader.close() }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, writer.rawValue, 1)
        let arguments = [
            journalctl, "--output=json", "--no-pager", "--quiet", "--all", "CAPCTL_DECISION_ID=" + decisionID,
        ]
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        // Nothing of the caller's environment: no pager, no other journal directory by surprise.
        let environment: [UnsafeMutablePointer<CChar>?] = [strdup("PATH=/usr/bin:/bin"), strdup("LC_ALL=C.UTF-8"), nil]
        defer {
            for pointer in argv + environment { free(pointer) }
        }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, journalctl, &actions, nil, argv, environment)
        try? writer.close()
        guard spawned == 0 else {
            throw CommandFailure(
                message: "capctl: cannot run journalctl: \(String(cString: strerror(spawned)))",
                status: ExitStatus.usage)
        }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = (try? chunk.withUnsafeMutableBytes { try reader.read(into: $0, retryOnInterrupt: true) }) ?? 0
            guard count > 0 else { break }
            output += chunk[0..<count]
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        return String(decoding: output, as: UTF8.self).split(separator: "\n").map(String.init)
    }
}
