/// Documents hold numbers as `Double`, which holds every integer up to 2^53 exactly and rounds
/// beyond: `9007199254740993` would read as `...992`. Such an integer is refused where it is
/// written, never rounded (a limit, a uid or a version compared after rounding is another value).
enum ExactIntegers {
    /// 2^53: the largest magnitude below which every integer is a `Double`.
    static let limit: UInt64 = 1 << 53

    /// Whether decimal digits (after an optional sign) name an integer a `Double` holds exactly.
    static func fits<Digits: Collection<UInt8>>(decimalDigits digits: Digits) -> Bool {
        var value: UInt64 = 0
        for digit in digits {
            let (times, overflow) = value.multipliedReportingOverflow(by: 10)
            guard !overflow else { return false }
            value = times + UInt64(digit - UInt8(ascii: "0"))
            if value > limit { return false }
        }
        return true
    }

    /// The message for an integer that does not fit.
    static func message(_ text: String) -> String {
        "the integer \(text) cannot be held exactly (integers go up to 2^53, 9007199254740992); quote it to keep it as text"
    }
}
