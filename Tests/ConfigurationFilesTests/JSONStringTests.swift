import Testing

@testable import ConfigurationFiles

/// The one writer of JSON strings: what must be escaped is (RFC 8259, section 7, and DEL), and
/// the rest is copied as it is, whichever way it is written.
@Suite
struct JSONStringTests {
    @Test(
        "a string with nothing to escape is copied whole; quote, backslash and every control character are escaped; other UTF-8 is kept",
        arguments: [
            ("operators", #""operators""#),
            ("", #""""#),
            ("gruppe-größe ✓", #""gruppe-größe ✓""#),
            (#"say "hi""#, #""say \"hi\"""#),
            (#"C:\path"#, #""C:\\path""#),
            ("two\nlines\r\tand", #""two\nlines\r\tand""#),
            ("bell\u{07} del\u{7F} nul\u{0}", #""bell\u0007 del\u007f nul\u0000""#),
            ("escape \u{1B}[31m at the end\u{1F}", #""escape \u001b[31m at the end\u001f""#),
        ])
    func escaped(string: String, written: String) {
        var bytes: [UInt8] = Array("prefix:".utf8)
        JSONString.append(string, to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == "prefix:" + written)
        #expect(JSONString.quoted(string) == written)
    }
}
