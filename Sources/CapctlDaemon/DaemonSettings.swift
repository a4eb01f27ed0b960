import Glibc
import LinuxBackends

/// What capctld decides with beyond its command line.
enum DaemonSettings {
    /// Half of systemd's watchdog interval (`WATCHDOG_USEC`, for this process when
    /// `WATCHDOG_PID` says whom), as sd_watchdog_enabled reads it; nil without a watchdog.
    static func watchdogInterval() -> Duration? {
        guard let text = variable("WATCHDOG_USEC"), let microseconds = UInt64(text), microseconds > 0 else {
            return nil
        }
        if let pid = variable("WATCHDOG_PID"), pid != String(getpid()) { return nil }
        return .microseconds(microseconds / 2)
    }

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
