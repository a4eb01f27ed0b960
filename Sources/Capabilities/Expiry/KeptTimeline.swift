import CPlatform

/// The time a ``KeptAuthorization`` measures, in nanoseconds since it was made: an integer
/// comparison per check, where `Duration` arithmetic takes calls. On Linux `ContinuousClock` is
/// CLOCK_BOOTTIME, which counts suspended time, so an authorization kept for five minutes is gone
/// after a night's sleep; that clock is read directly, without the generic witness calls. Other
/// clocks (a test's manual clock) are read through their `now`.
enum KeptTimeline: Sendable {
    case boottime(origin: Int64)
    case clock(elapsed: @Sendable () -> Duration)

    init<C: Clock>(_ clock: C, origin: C.Instant) where C.Duration == Duration {
        if clock is ContinuousClock, let start = Self.boottime() {
            self = .boottime(origin: start)
        } else {
            self = .clock(elapsed: { origin.duration(to: clock.now) })
        }
    }

    /// Nanoseconds since the origin, or nil when the clock could not be read.
    func now() -> Int64? {
        switch self {
        case .boottime(let origin):
            guard let now = Self.boottime() else { return nil }
            return now &- origin
        case .clock(let elapsed):
            return Self.nanoseconds(elapsed())
        }
    }

    private static func boottime() -> Int64? {
        var nanoseconds: CLongLong = 0
        guard cplatform_boottime_nanoseconds(&nanoseconds) == 0 else { return nil }
        return Int64(nanoseconds)
    }

    /// When something kept at `now` for `duration` runs out, saturated to Int64's range.
    static func expiry(from now: Int64, after duration: Duration) -> Int64 {
        let (sum, overflow) = now.addingReportingOverflow(nanoseconds(duration))
        return overflow ? (duration > .zero ? Int64.max : Int64.min) : sum
    }

    /// `duration` in nanoseconds, saturated to Int64's range (about 292 years either way).
    static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return seconds < 0 ? Int64.min : Int64.max }
        let (total, overflowAgain) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000)
        guard !overflowAgain else { return seconds < 0 ? Int64.min : Int64.max }
        return total
    }
}
