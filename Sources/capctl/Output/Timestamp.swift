import Plumbing

/// Times as capctl prints them: UTC, RFC 3339 (`2026-11-25T23:41:12.345Z`), written by the
/// package's one writer (`WallClock`), so that no command needs Foundation's formatters (and
/// their ICU data) to start.
enum Timestamp {
    /// Now, with milliseconds, as `watch` prints it.
    static func now() -> String {
        WallClock.rfc3339(secondsSince1970(), alwaysMilliseconds: true) ?? String(secondsSince1970())
    }

    /// Seconds since 1970, as a `Double`.
    static func secondsSince1970() -> Double { WallClock.secondsSince1970 }

    /// A time in seconds since 1970, to the second.
    static func format(secondsSince1970 value: Double) -> String {
        WallClock.rfc3339(value.rounded(.down)) ?? String(value)
    }
}
