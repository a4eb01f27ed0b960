import Glibc
import LinuxBackends

/// What capctld decides with beyond its command line.
enum DaemonSettings {
    /// How long a stopping capctld waits for the clients it serves: past a PAM answer's deadline.
    static let drainTimeout = Duration.seconds(130)

    /// Root's records of kept logins (`/run/capctl/keep`), per client scope, so a login kept for
    /// an unprivileged user is in a place that user cannot write. `CAPCTL_KEEP_DIRECTORY` moves
    /// them for tests only when it is not the system's directory.
    static func keptLoginRecords() -> KeptLoginRecords? {
        if let directory = variable("CAPCTL_KEEP_DIRECTORY"), directory.hasPrefix("/"),
            directory != KeptLoginRecords.systemDirectory
        {
            return KeptLoginRecords(directory: directory)
        }
        return geteuid() == 0 ? KeptLoginRecords(directory: KeptLoginRecords.systemDirectory) : nil
    }

    /// The environment variable `name`, if set.
    static func variable(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// CLOCK_MONOTONIC in microseconds, as `RELOADING=1` wants it.
    static func monotonicMicroseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
    }
}
