import Glibc

/// Times as capctl prints them: UTC, ISO 8601 (`2026-11-25T23:41:12.345Z`), from the C library,
/// so that no command needs Foundation's formatters (and their ICU data) to start.
enum Timestamp {
    /// Now, with milliseconds, as `watch` prints it.
    static func now() -> String {
        let (seconds, nanoseconds) = clock()
        return format(seconds: seconds, milliseconds: Int32(nanoseconds / 1_000_000))
    }

    /// Seconds since 1970, as a `Double`.
    static func secondsSince1970() -> Double {
        let (seconds, nanoseconds) = clock()
        return Double(seconds) + Double(nanoseconds) / 1e9
    }

    /// A time in seconds since 1970, to the second.
    static func format(secondsSince1970 value: Double) -> String {
        format(seconds: Int(value.rounded(.down)), milliseconds: nil)
    }

    private static func clock() -> (seconds: Int, nanoseconds: Int) {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return (time.tv_sec, time.tv_nsec)
    }

    private static func format(seconds: Int, milliseconds: Int32?) -> String {
        var parts = tm()
        var value = time_t(seconds)
        gmtime_r(&value, &parts)
        func padded(_ value: Int32, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return padded(parts.tm_year + 1900, 4) + "-" + padded(parts.tm_mon + 1, 2) + "-" + padded(parts.tm_mday, 2)
            + "T" + padded(parts.tm_hour, 2) + ":" + padded(parts.tm_min, 2) + ":" + padded(parts.tm_sec, 2)
            + (milliseconds.map { "." + padded($0, 3) } ?? "") + "Z"
    }
}
