import ConfigurationFiles
import FeatureFlags
import Plumbing

/// A 429's `Retry-After`, read as RFC 9110 (10.2.3) writes it: a number of seconds, or an
/// HTTP-date in any of its three forms (5.6.7: a recipient must accept all three); and an RFC 3339
/// time, which some services send. Read by hand, so that the module needs no Foundation (and its
/// ICU data) for one header.
enum RetryAfter {
    /// The time (seconds since 1970) the pause ends, or nil when the header is none of these.
    static func end(_ header: String, now: Double) -> Double? {
        let text = String(header.trimming([" ", "\t"]))
        if let seconds = Double(text), seconds.isFinite, seconds >= 0 { return now + seconds }
        return httpDate(text, now: now) ?? rfc3339(text)
    }

    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    private static let weekdays = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
    private static let longWeekdays = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]

    /// `Sun, 06 Nov 1994 08:49:37 GMT` (IMF-fixdate), `Sunday, 06-Nov-94 08:49:37 GMT` (RFC 850:
    /// a two-digit year more than 50 years ahead of `now` is the century before, as 5.6.7 says) or
    /// `Sun Nov  6 08:49:37 1994` (asctime).
    static func httpDate(_ text: String, now: Double) -> Double? {
        let words = text.split(separator: " ").map { $0.lowercased() }
        if words.count == 6, words[0].hasSuffix(","), weekdays.contains(String(words[0].dropLast())), words[5] == "gmt",
            let day = digits(words[1], 2), let month = months.firstIndex(of: words[2]),
            let year = digits(words[3], 4)
        {
            return instant(year: year, month: month + 1, day: day, time: words[4])
        }
        if words.count == 4, words[0].hasSuffix(","), longWeekdays.contains(String(words[0].dropLast())),
            words[3] == "gmt"
        {
            let date = words[1].split(separator: "-", omittingEmptySubsequences: false).map(String.init)
            guard date.count == 3, let day = digits(date[0], 2),
                let month = months.firstIndex(of: date[1]), let shortYear = digits(date[2], 2)
            else { return nil }
            let thisYear = Int(WallClock.rfc3339(now)?.prefix(4) ?? "") ?? 2000
            var year = thisYear - thisYear % 100 + shortYear
            if year > thisYear + 50 { year -= 100 }
            return instant(year: year, month: month + 1, day: day, time: words[2])
        }
        if words.count == 5, weekdays.contains(words[0]), let month = months.firstIndex(of: words[1]),
            let day = digits(words[2], 1) ?? digits(words[2], 2), let year = digits(words[4], 4)
        {
            return instant(year: year, month: month + 1, day: day, time: words[3])
        }
        return nil
    }

    /// `2026-11-27T08:00:00Z`, `2026-11-27T09:00:00.5+01:00`.
    static func rfc3339(_ text: String) -> Double? {
        let scalars = Array(text.utf8)
        guard scalars.count >= 20, scalars[4] == UInt8(ascii: "-"), scalars[7] == UInt8(ascii: "-"),
            [UInt8(ascii: "T"), UInt8(ascii: "t")].contains(scalars[10]),
            let year = number(scalars[0..<4]), let month = number(scalars[5..<7]), let day = number(scalars[8..<10])
        else { return nil }
        var end = 19
        while end < scalars.count, scalars[end] == UInt8(ascii: ".") || (end > 19 && isDigit(scalars[end])) { end += 1 }
        guard end != 20 else { return nil }  // a "." with no digits
        let time = String(decoding: scalars[11..<end], as: UTF8.self)
        guard let local = instant(year: year, month: month, day: day, time: time) else { return nil }
        let zone = scalars[end...]
        if zone.elementsEqual("Z".utf8) || zone.elementsEqual("z".utf8) { return local }
        guard zone.count == 6, [UInt8(ascii: "+"), UInt8(ascii: "-")].contains(zone.first!),
            zone[zone.startIndex + 3] == UInt8(ascii: ":"),
            let hours = number(zone[(zone.startIndex + 1)..<(zone.startIndex + 3)]),
            let minutes = number(zone[(zone.startIndex + 4)...]), hours < 24, minutes < 60
        else { return nil }
        let offset = Double(hours * 3600 + minutes * 60)
        return zone.first == UInt8(ascii: "+") ? local - offset : local + offset
    }

    /// A date and an `HH:MM:SS[.fraction]` time of day, in UTC; every field exactly its digits.
    private static func instant(year: Int, month: Int, day: Int, time: String) -> Double? {
        let parts = time.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, let hour = digits(parts[0], 2), let minute = digits(parts[1], 2),
            let whole = number(parts[2].utf8.prefix(2)), parts[2].utf8.count >= 2
        else { return nil }
        var second = Double(whole)
        let fraction = parts[2].utf8.dropFirst(2)
        if !fraction.isEmpty {
            // Read as a Double, not an integer: a fraction of any length cannot overflow.
            guard fraction.first == UInt8(ascii: "."), fraction.count > 1, fraction.dropFirst().allSatisfy(isDigit),
                let value = Double("0" + String(decoding: fraction, as: UTF8.self))
            else { return nil }
            second += value
        }
        return WallClock.seconds(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
    }

    /// `text` as a number when it is exactly `count` ASCII digits (no sign, no space).
    private static func digits(_ text: some StringProtocol, _ count: Int) -> Int? {
        text.utf8.count == count ? number(text.utf8) : nil
    }

    private static func number(_ digits: some Collection<UInt8>) -> Int? {
        guard !digits.isEmpty, digits.allSatisfy(isDigit) else { return nil }
        return digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
}
