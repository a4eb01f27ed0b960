import ConfigurationFiles
import Testing

/// The YAML reader against the examples of the YAML 1.2.2 specification (chapters 2, 6, 7 and
/// 8, as far as configuration files use them) and against the input a hostile or careless
/// author writes. Each document is compared through a compact JSON rendering of its nodes.
@Suite("YAML documents")
struct YAMLDocumentReaderTests {
    /// The nodes as compact JSON: strings quoted, numbers as Swift prints a Double.
    static func render(_ node: DocumentNode) -> String {
        switch node.kind {
        case .null: "null"
        case .bool(let value): "\(value)"
        case .number(let value): value == value.rounded() && abs(value) < 1e15 ? "\(Int(value))" : "\(value)"
        case .string(let text): "\"" + text.replacingEscapes() + "\""
        case .array(let elements): "[" + elements.map(render).joined(separator: ",") + "]"
        case .object(let members):
            "{" + members.map { "\"\($0.key.replacingEscapes())\":" + render($0.value) }.joined(separator: ",") + "}"
        }
    }

    static func read(_ text: String) throws -> String {
        render(try YAMLDocumentReader.read(text, file: "f.yaml"))
    }

    /// The error's "line:column: message".
    static func failure(_ text: String) -> String {
        do {
            let node = try YAMLDocumentReader.read(text, file: "f.yaml")
            return "no error: " + render(node)
        } catch {
            return "\(error.location?.line ?? 0):\(error.location?.column ?? 0): \(error.message)"
        }
    }

    /// Linear in the input: a column was once counted from the line's start for every node, so a
    /// 400 KB policy on one line took over 30 s. 4 MB (the trusted reader's limit) on one line now
    /// reads well inside the limit (quadratic reading would take about an hour); the time per byte
    /// at 100 KB, 1 MB and 4 MB is core-bench's `--yaml` row.
    @Test("a 4 MB document on one line reads in linear time", .timeLimit(.minutes(2)))
    func oneLongLine() throws {
        var text = "{"
        var count = 0
        while text.utf8.count < 4_000_000 {
            text += "key\(count): [value\(count), \(count)], "
            count += 1
        }
        text += "last: 1}\n"
        let node = try YAMLDocumentReader.read(text, file: "long.yaml")
        guard case .object(let members) = node.kind else {
            Issue.record("not a mapping")
            return
        }
        #expect(members.count == count + 1)
        #expect(members.last?.value.location.column == text.utf8.count - 2)
    }

    @Test("exactIntegers (policies): an integer past 2^53 is refused, never rounded; flag files read it as a double")
    func exactIntegers() throws {
        let message = "cannot be held exactly (integers go up to 2^53, 9007199254740992); quote it to keep it as text"
        for (text, column) in [
            ("a: 9007199254740993\n", 4), ("a: [0x20000000000001]\n", 5), ("a: -99999999999999999999\n", 4),
        ] {
            #expect(throws: ConfigurationError.self) {
                try YAMLDocumentReader.read(text, file: "f.yaml", exactIntegers: true)
            }
            do {
                _ = try YAMLDocumentReader.read(text, file: "f.yaml", exactIntegers: true)
            } catch {
                #expect(error.message.hasSuffix(message) && error.location?.column == column, "\(error)")
            }
        }
        #expect(
            try Self.render(YAMLDocumentReader.read("a: 9007199254740992\n", file: "f.yaml", exactIntegers: true))
                == #"{"a":9007199254740992.0}"#)
        // flagd reads a flag file's numbers as doubles: so does a flag file here.
        #expect(try Self.read("a: 9007199254740993\n") == #"{"a":9007199254740992.0}"#)
        // An integer past any double is refused there too, never read as text (it was a string).
        let huge = Self.failure("a: 1" + String(repeating: "0", count: 400) + "\n")
        #expect(huge.hasPrefix("1:4: '1000") && huge.contains("reads as infinite or not a number"), "\(huge)")
    }

    @Test(
        "the specification's chapter 2 examples read as it says",
        arguments: [
            // 2.1 Sequence of scalars
            ("- Mark McGwire\n- Sammy Sosa\n- Ken Griffey\n", #"["Mark McGwire","Sammy Sosa","Ken Griffey"]"#),
            // 2.2 Mapping scalars to scalars, with comments
            (
                "hr:  65    # Home runs\navg: 0.278 # Batting average\nrbi: 147   # Runs Batted In\n",
                #"{"hr":65,"avg":0.278,"rbi":147}"#
            ),
            // 2.3 Mapping scalars to sequences
            (
                "american:\n- Boston Red Sox\n- Detroit Tigers\nnational:\n- New York Mets\n- Chicago Cubs\n",
                #"{"american":["Boston Red Sox","Detroit Tigers"],"national":["New York Mets","Chicago Cubs"]}"#
            ),
            // 2.4 Sequence of mappings
            (
                "-\n  name: Mark McGwire\n  hr:   65\n-\n  name: Sammy Sosa\n  hr:   63\n",
                #"[{"name":"Mark McGwire","hr":65},{"name":"Sammy Sosa","hr":63}]"#
            ),
            // 2.5 Sequence of sequences
            (
                "- [name        , hr, avg  ]\n- [Mark McGwire, 65, 0.278]\n",
                #"[["name","hr","avg"],["Mark McGwire",65,0.278]]"#
            ),
            // 2.6 Mapping of mappings
            (
                "Mark McGwire: {hr: 65, avg: 0.278}\nSammy Sosa: {\n    hr: 63,\n    avg: 0.288,\n }\n",
                #"{"Mark McGwire":{"hr":65,"avg":0.278},"Sammy Sosa":{"hr":63,"avg":0.288}}"#
            ),
            // 2.10 (its anchor left out): a comment line between entries
            (
                "---\nhr:\n- Mark McGwire\n# Following node labeled SS\n- Sammy Sosa\nrbi:\n- Sammy Sosa\n- Ken Griffey\n",
                #"{"hr":["Mark McGwire","Sammy Sosa"],"rbi":["Sammy Sosa","Ken Griffey"]}"#
            ),
            // 2.12 Compact nested mapping
            (
                "---\n# Products purchased\n- item    : Super Hoop\n  quantity: 1\n- item    : Basketball\n  quantity: 4\n",
                #"[{"item":"Super Hoop","quantity":1},{"item":"Basketball","quantity":4}]"#
            ),
            // 2.13 In literals, newlines are preserved
            ("--- |\n  \\//||\\/||\n  // ||  ||__\n", #""\\//||\\/||\n// ||  ||__\n""#),
            // 2.14 In the folded scalars, newlines become spaces
            (
                "--- >\n  Mark McGwire's\n  year was crippled\n  by a knee injury.\n",
                #""Mark McGwire's year was crippled by a knee injury.\n""#
            ),
            // 2.15 Folded newlines are preserved for "more indented" and blank lines
            (
                ">\n Sammy Sosa completed another\n fine season with great stats.\n\n   63 Home Runs\n   0.288 Batting Average\n\n What a year!\n",
                #""Sammy Sosa completed another fine season with great stats.\n\n  63 Home Runs\n  0.288 Batting Average\n\nWhat a year!\n""#
            ),
            // 2.16 Indentation determines scope
            (
                "name: Mark McGwire\naccomplishment: >\n  Mark set a major league\n  home run record in 1998.\nstats: |\n  65 Home Runs\n  0.278 Batting Average\n",
                #"{"name":"Mark McGwire","accomplishment":"Mark set a major league home run record in 1998.\n","stats":"65 Home Runs\n0.278 Batting Average\n"}"#
            ),
            // 2.17 Quoted scalars
            (
                "unicode: \"Sosa did fine.\\u263A\"\ncontrol: \"\\b1998\\t1999\\t2000\\n\"\nhex esc: \"\\x0d\\x0a is \\r\\n\"\n\nsingle: '\"Howdy!\" he cried.'\nquoted: ' # Not a ''comment''.'\ntie-fighter: '|\\-*-/|'\n",
                #"{"unicode":"Sosa did fine.☺","control":"\b1998\t1999\t2000\n","hex esc":"\r\n is \r\n","single":"\"Howdy!\" he cried.","quoted":" # Not a 'comment'.","tie-fighter":"|\\-*-/|"}"#
            ),
            // 2.18 Multi-line flow scalars
            (
                "plain:\n  This unquoted scalar\n  spans many lines.\n\nquoted: \"So does this\n  quoted scalar.\\n\"\n",
                #"{"plain":"This unquoted scalar spans many lines.","quoted":"So does this quoted scalar.\n"}"#
            ),
            // 2.19 and 2.20, integers and floats of the core schema (YAML 1.2's own spellings)
            (
                // Example 2.20's infinity and NaN are refused (below): no policy or flag can hold them.
                "canonical: 12345\ndecimal: +12345\noctal: 0o14\nhexadecimal: 0xC\nexponential: 1.23015e+3\nfixed: 1230.15\n",
                #"{"canonical":12345,"decimal":12345,"octal":12,"hexadecimal":12,"exponential":1230.15,"fixed":1230.15}"#
            ),
            // 2.21 Miscellaneous
            (
                "null:\nbooleans: [ true, false ]\nstring: '012345'\n",
                #"{"null":null,"booleans":[true,false],"string":"012345"}"#
            ),
        ])
    func specificationChapter2(text: String, expected: String) throws {
        #expect(try Self.read(text) == expected)
    }

    @Test(
        "scalars: folding, escapes, chomping and the core schema",
        arguments: [
            // 8.4 Chomping of the final line break, 8.5 of trailing lines
            (
                "strip: |-\n  text\nclip: |\n  text\nkeep: |+\n  text\n",
                #"{"strip":"text","clip":"text\n","keep":"text\n"}"#
            ),
            ("strip: >-\n\n  text\n\n\nkeep: |+\n  text\n\n\n", #"{"strip":"\ntext","keep":"text\n\n\n"}"#),
            // 8.2 An indentation indicator keeps the leading spaces
            ("- |1\n  explicit\n- |\n detected\n", #"[" explicit\n","detected\n"]"#),
            // A literal keeps the more indented lines and the empty lines inside
            ("a: |\n  one\n\n    two\n  three\nb: 1\n", #"{"a":"one\n\n  two\nthree\n","b":1}"#),
            // An empty block scalar, then the next key
            ("a: |\nb: x\n", #"{"a":"","b":"x"}"#),
            // 7.5 Double-quoted line breaks: an escaped break joins without a space
            (
                "\"folded \nto a space,\t\n \nto a line feed, or \t\\\n \\ \tnon-content\"\n",
                #""folded to a space,\nto a line feed, or \t \tnon-content""#
            ),
            // 7.9 Single-quoted lines
            (
                "' 1st non-empty\n\n 2nd non-empty \n\t3rd non-empty '\n",
                #"" 1st non-empty\n2nd non-empty 3rd non-empty ""#
            ),
            // 7.12 Plain lines
            ("1st non-empty\n\n 2nd non-empty \n\t3rd non-empty\n", #""1st non-empty\n2nd non-empty 3rd non-empty""#),
            // Escapes of every length, and the named ones
            (#"a: "\x41\u00e9\U0001F600\N\_\L\P\/\ \0""#, "{\"a\":\"Aé😀\u{85}\u{A0}\u{2028}\u{2029}/ \\u0000\"}"),
            // Only the YAML 1.2 Booleans: yes, on and off stay strings
            (
                "[yes, no, on, off, True, FALSE, ~, Null, '', \"true\"]",
                #"["yes","no","on","off",true,false,null,null,"","true"]"#
            ),
            // Numbers: what is not a number by the core schema stays a string
            ("[1_000, 0b1, 1.2.3, -0.5, .5, 1e3, 0x, 12abc]", #"["1_000","0b1","1.2.3",-0.5,0.5,1000,"0x","12abc"]"#),
            // Distinct values are distinct keys; quoted, the infinities are text; tiny floats are floats
            ("1: a\n1.0: b\n'.inf': c\nx: -1e-400\n", #"{"1":"a","1.0":"b",".inf":"c","x":0}"#),
            // The core schema's 0x and 0o take digits only: a sign makes a string (Int(radix:) would take it).
            ("[0x-1, 0o+7, 0x+F, 0o-0, 0xff, 0o17]", #"["0x-1","0o+7","0x+F","0o-0",255,15]"#),
            (
                "[9007199254740992, -9007199254740992, 0x20000000000000]",
                "[9007199254740992.0,-9007199254740992.0,9007199254740992.0]"
            ),
            // Colons and hashes inside plain values
            (
                "url: http://example.com:8080/a#b\nratio: 1:2\ntag: a#b\n",
                #"{"url":"http://example.com:8080/a#b","ratio":"1:2","tag":"a#b"}"#
            ),
            // A value may start with - ? : when no blank follows
            ("a: -1x\nb: ?x\nc: :x\n", #"{"a":"-1x","b":"?x","c":":x"}"#),
        ])
    func scalars(text: String, expected: String) throws {
        #expect(try Self.read(text) == expected)
    }

    @Test(
        "structure: documents, flow collections, indentation, line endings",
        arguments: [
            // Directives and markers
            ("%YAML 1.2\n---\na: 1\n...\n# after the end\n", #"{"a":1}"#),
            ("--- # a comment\nfoo: bar\n", #"{"foo":"bar"}"#),
            ("---\n", "null"),
            // A byte-order mark and CRLF line endings
            ("\u{FEFF}a: 1\r\nb:\r\n  - x\r\n  - y\r\n", #"{"a":1,"b":["x","y"]}"#),
            // Flow: trailing commas, nesting over lines, JSON-style keys, a key without value, single pairs
            ("{ \"a\":1, b: [x, {c: d}, ], e, }", #"{"a":1,"b":["x",{"c":"d"}],"e":null}"#),
            ("[a: 1, \"b\": [2]]", #"[{"a":1},{"b":[2]}]"#),
            ("a: [1,\n  2, # two\n  3]\nb: {\n }\n", #"{"a":[1,2,3],"b":{}}"#),
            ("[a:b, c]", #"["a:b","c"]"#),
            // Compact collections in sequences
            ("- - a\n  - b\n- c: 1\n  d: 2\n-\n", #"[["a","b"],{"c":1,"d":2},null]"#),
            // Empty values
            ("a:\nb: # nothing\nc:\n\nd: 1\n", #"{"a":null,"b":null,"c":null,"d":1}"#),
            // Quoted keys, and keys that look like other types stay their text
            ("\"a b\": 1\n'c''d': 2\ntrue: 3\n1: 4\n", #"{"a b":1,"c'd":2,"true":3,"1":4}"#),
            // Deeper and shallower blocks
            ("a:\n    b:\n        c: 1\n    d: 2\ne: 3\n", #"{"a":{"b":{"c":1},"d":2},"e":3}"#),
            // Comments anywhere between lines, at any indentation
            ("# head\na:\n      # odd\n  b: 1\n# mid\n  c: 2\n", #"{"a":{"b":1,"c":2}}"#),
            // Tabs as separation (not indentation) are fine
            ("a:\t1\nb: [\t2 ]\n", #"{"a":1,"b":[2]}"#),
        ])
    func structure(text: String, expected: String) throws {
        #expect(try Self.read(text) == expected)
    }

    @Test(
        "bad input is refused with the line, the column and what is wrong",
        arguments: [
            ("", "1:1: the document is empty"),
            ("# only a comment\n", "1:1: the document is empty"),
            (
                "a: 1\n\tb: 2\n",
                "2:1: a tab before a line's content: this reader refuses tabs where indentation stands (their width is ambiguous); indent with spaces"
            ),
            (
                "a:\n  b: 1\n \tc: 2\n",
                "3:2: a tab before a line's content: this reader refuses tabs where indentation stands (their width is ambiguous); indent with spaces"
            ),
            ("a: 1\na: 2\n", "2:1: duplicate key \"a\" (first defined at line 1, column 1)"),
            ("{a: 1, a: 2}", "1:8: duplicate key \"a\" (first defined at line 1, column 2)"),
            // Keys the core schema reads as the same value are the same key (YAML's node equality)
            (
                "1: a\n01: b\n",
                "2:1: duplicate key a key of 2 characters that is not a name (the same value to YAML's core schema) (first defined at line 1, column 1)"
            ),
            (
                "true: a\nTrue: b\n",
                "2:1: duplicate key \"True\" (the same value to YAML's core schema) (first defined at line 1, column 1)"
            ),
            (
                "{null: a, ~: b}",
                "1:11: duplicate key a key of 1 characters that is not a name (the same value to YAML's core schema) (first defined at line 1, column 2)"
            ),
            (
                "0x10: a\n+16: b\n",
                "2:1: duplicate key a key of 3 characters that is not a name (the same value to YAML's core schema) (first defined at line 1, column 1)"
            ),
            (
                "1.50: a\n1.5: b\n",
                "2:1: duplicate key a key of 3 characters that is not a name (the same value to YAML's core schema) (first defined at line 1, column 1)"
            ),
            // A quoted key and a plain one of the same text stay one key of this reader's model
            (
                "'1': a\n1: b\n",
                "2:1: duplicate key a key of 1 characters that is not a name (first defined at line 1, column 1)"
            ),
            // Floats the core schema reads as infinite or not a number: refused, never read as text
            (
                "a: .inf\n",
                "1:4: '.inf' is a number YAML reads as infinite or not a number, which a policy or flag cannot hold (JSON has no such numbers): quote it to mean the text"
            ),
            (
                "[1, -.Inf]",
                "1:5: '-.Inf' is a number YAML reads as infinite or not a number, which a policy or flag cannot hold (JSON has no such numbers): quote it to mean the text"
            ),
            (
                "a: .NaN\n",
                "1:4: '.NaN' is a number YAML reads as infinite or not a number, which a policy or flag cannot hold (JSON has no such numbers): quote it to mean the text"
            ),
            (
                "a: 1e400\n",
                "1:4: '1e400' is a number YAML reads as infinite or not a number, which a policy or flag cannot hold (JSON has no such numbers): quote it to mean the text"
            ),
            (
                ".inf: 1\n",
                "1:1: '.inf' is a number YAML reads as infinite or not a number, which a policy or flag cannot hold (JSON has no such numbers): quote it to mean the text"
            ),
            (
                "a: 1\n  b: 2\n",
                "2:4: a value cannot continue with 'key: value' on a more indented line (indent the key as the others)"
            ),
            (
                "a: b: c\n",
                "1:5: a value cannot hold 'key: value' on its key's line (a mapping goes on the lines below, indented)"
            ),
            (
                "a:\n  b: 1\n c: 2\n",
                "3:2: this line's indentation (column 2) matches no block above it: the blocks there start at columns 1 and 3"
            ),
            ("  a: 1\nb: 2\n", "2:1: this line's indentation matches no block above it"),
            ("a:\n  - 'x'\n    - 2\n", "3:5: this line is indented more than the block it belongs to (column 3)"),
            // A plain value continues on a more indented line, as the specification says
            ("a:\n  - 1\n    - 2\n", "no error: {\"a\":[\"1 - 2\"]}"),
            ("a: 1\n- b\n", "2:1: a sequence entry where a mapping key was expected"),
            ("a: - b\n", "1:4: a sequence cannot start on its key's line: put each '- ' entry on a line of its own"),
            (
                "a: \"open\nb: 1\n",
                "1:4: a quoted value is not closed before line 2, which is indented less than 1 space(s) "
                    + "(a quoted value's lines are indented more than its block)"
            ),
            ("a: \"open\n", "1:4: a quoted value is not closed"),
            ("a: 'x' y\n", "1:8: unexpected text after the value"),
            (
                "a: [1, 2\nb: 3\n",
                "1:4: this flow collection is not closed before line 2, which is indented less than 1 space(s) "
                    + "(a flow collection's lines are indented more than its block)"
            ),
            // The closing bracket too (the YAML test suite's 9C9N).
            (
                "b: {\n}\n",
                "1:4: this flow collection is not closed before line 2, which is indented less than 1 space(s) "
                    + "(a flow collection's lines are indented more than its block)"
            ),
            ("a: [\"1\" 2]\n", "1:9: expected ',' or ']' here"),
            ("a: [1,, 2]\n", "1:7: an empty entry: two commas in a row"),
            (
                "[a]: 1\n",
                "1:4: a collection cannot be a mapping key (complex keys are not supported): keys are strings"
            ),
            (
                "{[a]: 1}\n",
                "1:2: a collection cannot be a mapping key (complex keys are not supported): keys are strings"
            ),
            ("? a\n: b\n", "1:1: explicit keys ('? ') are not supported: write 'key: value'"),
            ("a: \"\\q\"\n", "1:5: unknown escape '\\q' in a double-quoted value"),
            ("a: \"\\uD800\"\n", "1:5: the escape names no Unicode character"),
            ("a: \"\\x4\"\n", "1:5: this escape takes 2 hexadecimal digits"),
            ("a: |x\n  b\n", "1:5: unexpected text after '|': a block scalar starts on the next line"),
            ("a: %x\n", "1:4: '%' cannot start a plain value; quote the value"),
            ("a: @x\n", "1:4: '@' is reserved in YAML and cannot start a value; quote the value"),
            ("a: 1\n---\nb: 2\n", "2:1: a file holds one YAML document; a second one starts here"),
            (
                "%YAML 2.0\n---\na: 1\n",
                "1:1: %YAML 2.0 is refused: this reader reads YAML 1.2 only (YAML 1.1 reads yes, no, on and off as "
                    + "Booleans, 1.2 as strings); drop the directive and write 1.2"
            ),
            // Refused, never read by other rules than its author's (on: would be true in 1.1).
            (
                "%YAML 1.1\n---\na: on\n",
                "1:1: %YAML 1.1 is refused: this reader reads YAML 1.2 only (YAML 1.1 reads yes, no, on and off as "
                    + "Booleans, 1.2 as strings); drop the directive and write 1.2"
            ),
            ("%YAML 1.2 foo\n---\na: 1\n", "1:1: a %YAML directive takes one version, such as 1.2, and nothing else"),
            ("%YAML 1.2\n%YAML 1.2\n---\na: 1\n", "2:1: a second %YAML directive"),
            ("...\n", "1:1: the document is empty: '...' ends it before anything"),
            ("a: 1\n...\nb: 2\n", "3:1: a file holds one YAML document; a second one starts here"),
            (
                "--- a: 1\n",
                "1:5: a block mapping or sequence cannot start on the '---' line: begin it on the next line"
            ),
            ("[a, b,#c]\n", "1:7: '#' cannot start a plain value; quote the value"),
            ("[-]\n", "1:2: '-' alone is not a plain value here; quote the value"),
            ("%TAG ! tag:example.com,2000:\n---\na: 1\n", "1:1: YAML tags are not allowed: use plain values"),
            ("%YAML 1.2\na: 1\n", "2:1: a directive must be followed by '---', the start of the document"),
            ("a: \u{7}\n", "1:4: a control character (byte 7) is not allowed in YAML"),
            ("a: é\u{85}ok\u{9B}\n", "1:8: a control character (U+009B) is not allowed in YAML"),
        ])
    func refusals(text: String, expected: String) {
        #expect(Self.failure(text) == expected)
    }

    @Test(
        "anchors, aliases and tags are refused where they stand",
        arguments: [
            ("a: &x 1\nb: *x\n", "1:4: YAML anchors are not allowed"),
            ("- *x\n", "1:3: YAML aliases are not allowed"),
            ("a: [1, *x]\n", "1:8: YAML aliases are not allowed"),
            ("a: !!str 1\n", "1:4: YAML tags are not allowed: use plain values"),
            ("!t a: 1\n", "1:1: YAML tags are not allowed: use plain values"),
            ("&a key: 1\n", "1:1: YAML anchors are not allowed"),
            ("a: {b: !x c}\n", "1:8: YAML tags are not allowed: use plain values"),
        ])
    func extensions(text: String, expected: String) {
        #expect(Self.failure(text) == expected)
    }

    @Test("text that merely contains & * ! is an ordinary value")
    func indicatorsInsideValues() throws {
        #expect(
            try Self.read("a: R&D\nb: 2*3\nc: wow!\nd: '&x'\ne: \"*y\"\nf: |\n  &z !t *w\n")
                == #"{"a":"R&D","b":"2*3","c":"wow!","d":"&x","e":"*y","f":"&z !t *w\n"}"#)
    }

    @Test("every node knows its line and column; columns count characters, not bytes")
    func locations() throws {
        let root = try YAMLDocumentReader.read("# c\nnäme: välue\nlist:\n  - x\n  - {k: [1]}\n", file: "f.yaml")
        guard case .object(let members) = root.kind else {
            Issue.record("not a mapping")
            return
        }
        #expect("\(root.location)" == "f.yaml:2:1")
        #expect("\(members[0].keyLocation)" == "f.yaml:2:1")
        #expect("\(members[0].value.location)" == "f.yaml:2:7")
        #expect("\(members[1].value.location)" == "f.yaml:4:3")
        guard case .array(let elements) = members[1].value.kind else {
            Issue.record("not a sequence")
            return
        }
        #expect("\(elements[0].location)" == "f.yaml:4:5")
        #expect("\(elements[1].location)" == "f.yaml:5:5")
        #expect("\(elements[1].member("k")?.value.location.description ?? "")" == "f.yaml:5:9")
    }

    @Test("nesting is bounded in block and in flow style, without exhausting the stack")
    func depth() {
        let flow = String(repeating: "[", count: 100_000)
        #expect(Self.failure(flow) == "1:257: nested more than 256 levels deep")
        var block = ""
        for level in 0..<300 { block += String(repeating: " ", count: level) + "k:\n" }
        #expect(Self.failure(block).hasSuffix("nested more than 256 levels deep"))
    }

    @Test("a large document reads in one pass")
    func largeDocument() throws {
        var text = "flags:\n"
        for index in 0..<20_000 {
            text += "  flag\(index): { state: ENABLED, variants: { on: true }, defaultVariant: on }\n"
        }
        let root = try YAMLDocumentReader.read(text, file: "f.yaml")
        guard case .object(let flags) = root.member("flags")?.value.kind else {
            Issue.record("no flags")
            return
        }
        #expect(flags.count == 20_000)
        #expect(
            Self.render(flags[19_999].value) == #"{"state":"ENABLED","variants":{"on":true},"defaultVariant":"on"}"#)
    }
}

extension String {
    /// JSON's escapes for the characters the renderings above contain.
    fileprivate func replacingEscapes() -> String {
        var result = ""
        for scalar in unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case "\u{8}": result += "\\b"
            case "\u{0}": result += "\\u0000"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
