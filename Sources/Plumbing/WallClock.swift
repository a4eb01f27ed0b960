#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The system's wall clock and the proleptic Gregorian calendar in UTC: the package's one reader
/// of the time of day and its one writer of RFC 3339 times (flag values, audit records, capctl's
/// output, HTTP dates), so that no module needs Foundation's `Date` or its formatters.
package enum WallClock {
    /// Seconds since 1970-01-01T00:00:00Z, now (CLOCK_REALTIME).
    package static var secondsSince1970: Double {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// The seconds since 1970 of a date and time of day in UTC, or nil when a field is out of its
    /// range (month 1-12, the month's days, hour 0-23, minute 0-59, second 0-60: a leap second
    /// reads as the next second's start).
    package static func seconds(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Double) -> Double? {
        guard (1...12).contains(month), (0...23).contains(hour), (0...59).contains(minute), second >= 0,
            second < 61, (1...days(inMonth: month, year: year)).contains(day)
        else { return nil }
        let days = daysSince1970(year: Int64(year), month: Int64(month), day: Int64(day))
        return Double(days * 86_400 + Int64(hour * 3600 + minute * 60)) + second
    }

    /// RFC 3339 in UTC (`2025-11-26T12:00:00Z`), with milliseconds always (`…:00.000Z`, columns
    /// that line up) or only when there are any; nil outside years 0000 to 9999 (or not finite),
    /// which RFC 3339 has no spelling for.
    package static func rfc3339(_ secondsSince1970: Double, alwaysMilliseconds: Bool = false) -> String? {
        let limit = 253_402_300_800.0  // 10000-01-01T00:00:00Z
        guard secondsSince1970.isFinite, secondsSince1970 >= -62_167_219_200, secondsSince1970 < limit else {
            return nil
        }
        let milliseconds = Int64((secondsSince1970 * 1000).rounded(.down))
        let (days, millisecondOfDay) = floorDivide(milliseconds, 86_400_000)
        let (year, month, day) = civilDate(daysSince1970: days)
        let second = millisecondOfDay / 1000
        var text =
            pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) + "T" + pad(second / 3600, 2) + ":"
            + pad(second / 60 % 60, 2) + ":" + pad(second % 60, 2)
        if alwaysMilliseconds || millisecondOfDay % 1000 != 0 { text += "." + pad(millisecondOfDay % 1000, 3) }
        return text + "Z"
    }

    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        let remainder = (value % divisor + divisor) % divisor
        return ((value - remainder) / divisor, remainder)
    }

    /// The proleptic Gregorian date of a day count: the calendar repeats every 400 years
    /// (146,097 days), counted here from 0000-03-01 so that the leap day ends each year.
    private static func civilDate(daysSince1970: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let days = daysSince1970 + 719_468  // days from 0000-03-01 to 1970-01-01
        let era = (days >= 0 ? days : days - 146_096) / 146_097
        let dayOfEra = days - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153  // 0 is March
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// The inverse of ``civilDate(daysSince1970:)``.
    private static func daysSince1970(year: Int64, month: Int64, day: Int64) -> Int64 {
        let marchYear = month <= 2 ? year - 1 : year
        let era = (marchYear >= 0 ? marchYear : marchYear - 399) / 400
        let yearOfEra = marchYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func days(inMonth month: Int, year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
