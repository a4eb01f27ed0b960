import Testing

@testable import RemoteFlags

/// A 429's `Retry-After` as RFC 9110 (10.2.3, 5.6.7) writes it, read without Foundation.
@Suite
struct RetryAfterTests {
    /// 2026-11-27T08:00:00Z.
    static let now = 1_795_766_400.0
    static let longFraction: String = "2026-11-27T08:02:00." + String(repeating: "0", count: 400) + "Z"

    @Test(
        "seconds, the three HTTP-date forms RFC 9110 says a recipient must accept, and RFC 3339",
        arguments: [
            ("120", now + 120),
            (" 0 ", now),
            ("Sun, 06 Nov 1994 08:49:37 GMT", 784_111_777),
            ("Sunday, 06-Nov-94 08:49:37 GMT", 784_111_777),
            ("Sun Nov  6 08:49:37 1994", 784_111_777),
            ("Fri, 27 Nov 2026 08:01:00 GMT", now + 60),
            ("2026-11-27T08:02:00Z", now + 120),
            ("2026-11-27T09:02:00.5+01:00", now + 120.5),
            ("2026-11-27T07:02:00-01:00", now + 120),
            // A fraction of any length (a hostile service's), read without overflow.
            (longFraction, now + 120),
        ])
    func readable(header: String, end: Double) {
        #expect(RetryAfter.end(header, now: Self.now) == end)
    }

    @Test(
        "anything else is not a time: the caller pauses its default minute",
        arguments: [
            "", "-5", "soon", "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 31 Nov 1994 08:49:37 GMT",
            "Sun, 06 Nov 1994 25:49:37 GMT", "2026-11-27 08:02:00Z", "2026-11-27T08:02:00", "2026-11-27T08:02:00.Z",
            "2026-11-27T08:02:00+25:00", "2026-13-27T08:02:00Z", "Sunday, 06-Nov-1994 08:49:37 GMT",
            "Sun, +6 Nov 1994 08:49:37 GMT", "Sun Nov +6 08:49:37 1994", "Sun, 06 Nov 1994 +8:49:37 GMT",
            "Sun, 06 Nov 1994 08:-9:37 GMT", "Sun, 06 Nov 1994 08:49:+7 GMT", "Sun, 06 Nov 1994 08:49:37. GMT",
        ])
    func unreadable(header: String) {
        #expect(RetryAfter.end(header, now: Self.now) == nil)
    }

    @Test("a two-digit RFC 850 year more than 50 years ahead is the century before (RFC 9110 5.6.7)")
    func twoDigitYears() {
        // 2076: 50 years ahead, not more.
        #expect(RetryAfter.end("Wednesday, 01-Jan-76 00:00:00 GMT", now: Self.now) == 3_345_062_400)
        // 2081 would be more than 50 years ahead: 1981.
        #expect(RetryAfter.end("Thursday, 01-Jan-81 00:00:00 GMT", now: Self.now) == 347_155_200)
    }
}
