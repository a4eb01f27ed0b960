import Foundation
import Glibc

/// A cgroup (v2) named as a systemd unit, such as `capctld-test-1.service`, that a test starts a
/// daemon in: journald keys its per-service rate limit by the unit a sender's cgroup names, and
/// a process outside any unit is never limited. Made in the cgroup2 hierarchy (a hybrid host's
/// `/sys/fs/cgroup/unified`, or `/sys/fs/cgroup`) and removed when released.
public final class ControlGroup: Sendable {
    /// The unit's directory in the hierarchy.
    public let path: String

    /// Whether this machine has a cgroup2 hierarchy a root test can make groups in.
    public static var isAvailable: Bool { geteuid() == 0 && hierarchy != nil }

    /// The cgroup2 mount point, from /proc/self/mountinfo.
    private static var hierarchy: String? {
        guard let mounts = try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8) else { return nil }
        for line in mounts.split(separator: "\n") {
            let halves = line.components(separatedBy: " - ")
            guard halves.count == 2, halves[1].hasPrefix("cgroup2 ") else { continue }
            let fields = halves[0].split(separator: " ")
            if fields.count > 4 { return String(fields[4]) }
        }
        return nil
    }

    /// A new group `UNIT-PID-N.service`.
    public init(unit: String) throws {
        guard let hierarchy = Self.hierarchy else { throw FixtureError("no cgroup2 hierarchy") }
        path = hierarchy + "/\(unit)-\(getpid())-\(UUID().uuidString.prefix(8)).service"
        guard mkdir(path, 0o755) == 0 else { throw FixtureError("cannot make \(path): \(errno)") }
    }

    deinit { rmdir(path) }

    /// `command`, run in this group: a shell moves itself in, then execs it.
    public func inside(_ command: [String]) -> [String] {
        ["/bin/sh", "-c", "echo $$ > \(path)/cgroup.procs && exec \"$@\"", "sh"] + command
    }
}
