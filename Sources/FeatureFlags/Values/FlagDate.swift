import Plumbing

/// A point in time, as a flag value: OpenFeature's `datetime` in evaluation contexts and hook
/// hints (3.1.2, 4.2.1).
///
/// Kept as seconds since 1970 (UTC) so that this module needs no Foundation; from a `Date`,
/// `FlagDate(secondsSince1970: date.timeIntervalSince1970)`. Written out (JSON, messages, and
/// targeting rules, which see what flagd sees of a context serialized to JSON) as an RFC 3339
/// UTC timestamp.
///
/// ```swift
/// let signedUp = FlagDate(secondsSince1970: 1_764_158_400)
/// let context = FlagEvaluationContext(targetingKey: userID, attributes: ["signedUp": .date(signedUp)])
/// print(signedUp)  // 2025-11-26T12:00:00Z
/// ```
public struct FlagDate: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Seconds since 1970-01-01T00:00:00Z; negative before it.
    public let secondsSince1970: Double

    /// The instant `secondsSince1970` seconds after (or before, if negative) 1970-01-01T00:00:00Z.
    public init(secondsSince1970: Double) {
        self.secondsSince1970 = secondsSince1970
    }

    public static func < (lhs: FlagDate, rhs: FlagDate) -> Bool { lhs.secondsSince1970 < rhs.secondsSince1970 }

    /// Now, by the system's wall clock (Plumbing's `WallClock`).
    package static var now: FlagDate { FlagDate(secondsSince1970: WallClock.secondsSince1970) }

    /// The instant of a proleptic Gregorian date and time of day in UTC, or nil when a field is
    /// out of its range (month 1-12, the month's days, hour 0-23, minute 0-59, second 0-60: a
    /// leap second reads as the next second's start).
    package init?(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Double) {
        guard
            let seconds = WallClock.seconds(
                year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        else { return nil }
        self.init(secondsSince1970: seconds)
    }

    /// RFC 3339 in UTC: `2025-11-26T12:00:00Z`, with milliseconds when there are any
    /// (`2025-11-26T12:00:00.250Z`). An instant outside years 0000 to 9999 (or not finite) is
    /// written as its number of seconds, since RFC 3339 has no spelling for it.
    public var description: String {
        WallClock.rfc3339(secondsSince1970) ?? FlagValue.format(secondsSince1970)
    }
}
