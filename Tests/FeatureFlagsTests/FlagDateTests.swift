import FeatureFlags
import Testing

/// Dates in flag values (OpenFeature's `datetime`, 3.1.2 and 4.2.1): how they are written, and
/// what targeting rules see of them.
@Suite
struct FlagDateTests {
    @Test(
        "written as RFC 3339 in UTC, leap days and dates before 1970 included",
        arguments: [
            (0.0, "1970-01-01T00:00:00Z"),
            (951_782_400, "2000-02-29T00:00:00Z"),
            (-2_203_891_200, "1900-03-01T00:00:00Z"),
            (1_764_158_400.25, "2025-11-26T12:00:00.250Z"),
            (-1, "1969-12-31T23:59:59Z"),
            (-0.5, "1969-12-31T23:59:59.500Z"),
            (-62_167_219_200, "0000-01-01T00:00:00Z"),
            (253_402_300_799, "9999-12-31T23:59:59Z"),
        ])
    func rfc3339(seconds: Double, text: String) {
        #expect(FlagDate(secondsSince1970: seconds).description == text)
    }

    @Test(
        "a date and time of day in UTC is the instant RFC 3339 writes back; a field out of its range is none",
        arguments: [
            (0.0, "1970-01-01T00:00:00Z"),
            (951_782_400, "2000-02-29T00:00:00Z"),
            (-2_203_891_200, "1900-03-01T00:00:00Z"),
            (1_764_158_400.25, "2025-11-26T12:00:00.250Z"),
            (-62_167_219_200, "0000-01-01T00:00:00Z"),
            (253_402_300_799, "9999-12-31T23:59:59Z"),
        ])
    func fromFields(seconds: Double, text: String) throws {
        let digits = text.split(whereSeparator: { "-T:Z".contains($0) }).map(String.init)
        let date = try #require(
            FlagDate(
                year: Int(digits[0])!, month: Int(digits[1])!, day: Int(digits[2])!, hour: Int(digits[3])!,
                minute: Int(digits[4])!, second: Double(digits[5])!))
        #expect(date.secondsSince1970 == seconds)
    }

    @Test("out of range: month 13, February 29 of 1900 and 2023, hour 24, minute 60, second 61")
    func fieldsOutOfRange() {
        #expect(FlagDate(year: 2026, month: 13, day: 1, hour: 0, minute: 0, second: 0) == nil)
        #expect(FlagDate(year: 1900, month: 2, day: 29, hour: 0, minute: 0, second: 0) == nil)
        #expect(FlagDate(year: 2023, month: 2, day: 29, hour: 0, minute: 0, second: 0) == nil)
        #expect(FlagDate(year: 2024, month: 2, day: 29, hour: 0, minute: 0, second: 0) != nil)
        #expect(FlagDate(year: 2026, month: 4, day: 31, hour: 0, minute: 0, second: 0) == nil)
        #expect(FlagDate(year: 2026, month: 1, day: 1, hour: 24, minute: 0, second: 0) == nil)
        #expect(FlagDate(year: 2026, month: 1, day: 1, hour: 0, minute: 60, second: 0) == nil)
        #expect(FlagDate(year: 2026, month: 1, day: 1, hour: 0, minute: 0, second: 61) == nil)
    }

    @Test(
        "an instant RFC 3339 cannot spell is written as its seconds",
        arguments: [253_402_300_800, -62_167_219_201, .nan])
    func outOfRange(seconds: Double) {
        #expect(FlagDate(secondsSince1970: seconds).description == FlagValue.number(seconds).description)
    }

    @Test("in JSON a date is its string, inside lists and structures too; it stays a date in Swift")
    func json() {
        let date = FlagDate(secondsSince1970: 0)
        let value: FlagValue = ["when": .date(date), "list": [.date(date), 1]]
        #expect(value.description == #"{"list":["1970-01-01T00:00:00Z",1],"when":"1970-01-01T00:00:00Z"}"#)
        #expect(value.jsonValue == ["when": "1970-01-01T00:00:00Z", "list": ["1970-01-01T00:00:00Z", 1]])
        #expect(FlagValue.date(date).dateValue == date)
        #expect(FlagValue.date(date).typeName == "date")
        #expect(FlagDate(secondsSince1970: 1) > date)
    }

    @Test("3.1.2: a targeting rule compares a date in the context as the RFC 3339 string flagd would receive")
    func targeting() throws {
        let flags = try store(
            """
            { "flags": { "early-adopter": { "state": "ENABLED", "variants": { "yes": true, "no": false },
                "defaultVariant": "no",
                "targeting": { "if": [{ "<": [{ "var": "signedUp" }, "2025-01-01T00:00:00Z"] }, "yes", "no"] } } } }
            """)
        let early = FlagEvaluationContext(attributes: ["signedUp": .date(FlagDate(secondsSince1970: 1_700_000_000))])
        let late = FlagEvaluationContext(attributes: ["signedUp": .date(FlagDate(secondsSince1970: 1_760_000_000))])
        #expect(flags.value("early-adopter", default: false, context: early) == true)
        #expect(flags.value("early-adopter", default: true, context: late) == false)
        // A date that is no instant at all is refused as a NaN number is, never compared as the string "NaN".
        for seconds in [Double.nan, .infinity] {
            let broken = FlagEvaluationContext(attributes: ["signedUp": .date(FlagDate(secondsSince1970: seconds))])
            let details = flags.evaluation("early-adopter", default: true, context: broken)
            #expect(details.errorCode == .invalidContext && details.value == true, "\(details)")
            #expect(details.errorMessage?.contains("signedUp") == true)
        }
    }

    /// Records the hints and context its before stage saw.
    final class HintReader: FlagHook {
        let seen = OpenFeatureClientTests.Log()
        func before(_ context: HookContext, hints: HookHints) throws -> FlagEvaluationContext? {
            seen.append("hint \(hints["deadline"]?.dateValue?.description ?? "none")")
            seen.append("context \(context.evaluationContext.attributes["now"]?.dateValue?.description ?? "none")")
            return nil
        }
    }

    @Test("3.1.2, 4.2.1: dates travel in evaluation contexts and hook hints as dates")
    func contextAndHints() async {
        let api = OpenFeatureAPI()
        await api.setProvider(InMemoryFlagProvider(["f": true]))
        let hook = HintReader()
        _ = api.client().boolean(
            "f", default: false,
            context: FlagEvaluationContext(attributes: ["now": .date(FlagDate(secondsSince1970: 60))]),
            options: FlagEvaluationOptions(hooks: [hook], hints: ["deadline": .date(FlagDate(secondsSince1970: 120))]))
        #expect(hook.seen.all == ["hint 1970-01-01T00:02:00Z", "context 1970-01-01T00:01:00Z"])
    }
}
