import ConfigurationFiles
import Testing

/// The JSON reader against RFC 8259's grammar: every value type, escapes, numbers, nesting, and
/// the errors, each at the character where it occurs.
@Suite("JSON documents")
struct JSONDocumentReaderTests {
    static func read(_ text: String) throws -> String {
        YAMLDocumentReaderTests.render(try JSONDocumentReader.read(text, file: "f.json"))
    }

    static func failure(_ text: String) -> String {
        do {
            return "no error: " + YAMLDocumentReaderTests.render(try JSONDocumentReader.read(text, file: "f.json"))
        } catch {
            return "\(error.location?.line ?? 0):\(error.location?.column ?? 0): \(error.message)"
        }
    }

    @Test(
        "values, escapes and numbers read as RFC 8259 says",
        arguments: [
            (#"{"a": [1, -2.5, 3e2, 0, -0, true, false, null, "x"]}"#, #"{"a":[1,-2.5,300,0,0,true,false,null,"x"]}"#),
            (#""\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00""#, "\"\\\"\\\\/\\b\u{0C}\\n\\r\\té😀\""),
            ("\u{FEFF}  {\n\t\"k\" :\r\n {} }  ", #"{"k":{}}"#),
            ("[]", "[]"),
            (#""\u0000""#, #""\u0000""#),
            ("1E+2", "100"),
            // 2^53 is the largest integer every smaller one of which a Double holds exactly.
            (
                "[9007199254740992, -9007199254740992, 9007199254740993.0, 1e300]",
                "[9007199254740992.0,-9007199254740992.0,9007199254740992.0,1e+300]"
            ),
        ])
    func values(text: String, expected: String) throws {
        #expect(try Self.read(text) == expected)
    }

    @Test(
        "errors name the line, the column and the character's class, never the text",
        arguments: [
            ("", "1:1: expected a value, found end of file"),
            ("{\"a\": 1,}", "1:9: expected a member name in double quotes, found '}'"),
            ("{\"a\" 1}", "1:6: expected ':' after the member name, found a number"),
            ("[1 2]", "1:4: expected ',' or ']' in array, found a number"),
            ("{\"a\": 1 \"b\": 2}", "1:9: expected ',' or '}' in object, found '\"'"),
            ("tru", "1:1: invalid literal; did you mean true?"),
            ("01", "1:1: invalid number: leading zeros are not allowed"),
            ("1.", "1:1: invalid number: expected a digit after '.'"),
            ("1e", "1:1: invalid number: expected a digit in the exponent"),
            ("-", "1:1: invalid number: expected a digit"),
            ("1e999", "1:1: number 1e999 is out of range"),
            ("\"abc", "1:1: unterminated string"),
            ("\"a\nb\"", "1:3: control character in string; write it as an escape such as \\n"),
            (#""\ud800""#, "1:2: unpaired surrogate in \\u escape"),
            (#""\u12""#, "1:2: \\u must be followed by four hexadecimal digits"),
            (#""\q""#, "1:2: invalid escape '\\q'"),
            ("{} x", "1:4: found a word after the end of the document"),
            ("{\"a\": 1, \"a\": 2}", "1:10: duplicate key \"a\" (first defined at line 1, column 2)"),
        ])
    func errors(text: String, expected: String) {
        #expect(Self.failure(text) == expected)
    }

    @Test("a duplicate key is found in a large object too: among the first members, or past them")
    func duplicatesInLargeObjects() {
        // 20 members on their own lines, k0 ... k19: line N + 2 holds kN.
        let members = (0..<20).map { "\"k\($0)\": \($0)" }
        func object(_ more: String) -> String { "{\n" + (members + [more]).joined(separator: ",\n") + "\n}" }
        #expect(Self.failure(object("\"k3\": 0")) == "22:1: duplicate key \"k3\" (first defined at line 5, column 1)")
        #expect(
            Self.failure(object("\"k18\": 0")) == "22:1: duplicate key \"k18\" (first defined at line 20, column 1)")
        #expect(Self.failure(object("\"k20\": 0")).hasPrefix("no error"))
    }

    @Test("exactIntegers (policies): an integer past 2^53 is refused where it stands; flag files keep JSON's doubles")
    func exactIntegers() throws {
        for (text, column) in [("[9007199254740993]", 2), ("-123456789012345678901234567890", 1)] {
            do {
                _ = try JSONDocumentReader.read(text, file: "f.json", exactIntegers: true)
                Issue.record("\(text) was read")
            } catch {
                #expect(
                    error.message.contains("cannot be held exactly") && error.location?.column == column, "\(error)")
            }
        }
        #expect(
            try YAMLDocumentReaderTests.render(
                JSONDocumentReader.read("[9007199254740992, 1e300]", file: "f.json", exactIntegers: true))
                == "[9007199254740992.0,1e+300]")
        #expect(try Self.read("[9007199254740993]") == "[9007199254740992.0]")
    }

    @Test("nesting stops at 256 levels, in arrays and objects, without exhausting the stack")
    func depth() {
        #expect(Self.failure(String(repeating: "[", count: 100_000)).hasSuffix("nested more than 256 levels deep"))
        #expect(Self.failure(String(repeating: "{\"a\":", count: 300)).hasSuffix("nested more than 256 levels deep"))
    }

    @Test("positions: each value knows its line and column (columns in characters)")
    func positions() throws {
        let root = try JSONDocumentReader.read("{\n  \"é\": [1,\n    {\"b\": true}]\n}", file: "f.json")
        let member = try #require(root.member("é"))
        #expect("\(member.keyLocation)" == "f.json:2:3")
        #expect("\(member.value.location)" == "f.json:2:8")
        guard case .array(let elements) = member.value.kind else {
            Issue.record("not an array")
            return
        }
        #expect("\(elements[1].location)" == "f.json:3:5")
        #expect("\(elements[1].member("b")?.value.location.description ?? "")" == "f.json:3:11")
    }
}
