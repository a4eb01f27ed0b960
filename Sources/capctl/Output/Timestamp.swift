import FeatureFlags

/// Times as capctl prints them: UTC, RFC 3339 (`2026-11-25T23:41:12.345Z`), written by the
/// package's one writer (`FlagDate`), so that no command needs Foundation's formatters (and their
/// ICU data) to start.
enum Timestamp {
    /// Now, with milliseconds, as `watch` prints it.
    static func now() -> String {
        FlagDate(secondsSince1970: secondsSince1970()).rfc3339(alwaysMilliseconds: true)
    }

    /// Seconds since 1970, as a `Double`.
    static func secondsSince1970() -> Double { FlagDate.now.secondsSince1970 }

    /// A time in seconds since 1970, to the second.
    static func format(secondsSince1970 value: Double) -> String {
        FlagDate(secondsSince1970: value.rounded(.down)).description
    }
}
