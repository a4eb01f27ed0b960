import Plumbing
import Testing

/// The one writer of times: RFC 3339 in UTC, and the calendar under it.
struct WallClockTests {
    @Test("capctl's times (watch) always have milliseconds; flag values only when there are any")
    func milliseconds() {
        #expect(WallClock.rfc3339(1_764_158_400, alwaysMilliseconds: true) == "2025-11-26T12:00:00.000Z")
        #expect(WallClock.rfc3339(-0.5, alwaysMilliseconds: true) == "1969-12-31T23:59:59.500Z")
        #expect(WallClock.rfc3339(1_764_158_400) == "2025-11-26T12:00:00Z")
        #expect(WallClock.rfc3339(1_764_158_400.25) == "2025-11-26T12:00:00.250Z")
    }

    @Test("years outside 0000 to 9999, and numbers that are not finite, have no RFC 3339 spelling")
    func outOfRange() {
        #expect(WallClock.rfc3339(253_402_300_800) == nil)
        #expect(WallClock.rfc3339(-62_167_219_201) == nil)
        #expect(WallClock.rfc3339(.infinity) == nil && WallClock.rfc3339(.nan) == nil)
        #expect(WallClock.rfc3339(-62_167_219_200) == "0000-01-01T00:00:00Z")
    }

    @Test("a date and time of day to seconds and back; fields out of range are refused")
    func calendar() {
        let leap = WallClock.seconds(year: 2024, month: 2, day: 29, hour: 23, minute: 59, second: 59)
        #expect(leap.flatMap { WallClock.rfc3339($0) } == "2024-02-29T23:59:59Z")
        #expect(WallClock.seconds(year: 2025, month: 2, day: 29, hour: 0, minute: 0, second: 0) == nil)
        #expect(WallClock.seconds(year: 2026, month: 13, day: 1, hour: 0, minute: 0, second: 0) == nil)
        #expect(WallClock.secondsSince1970 > 1_764_158_400)
    }
}
