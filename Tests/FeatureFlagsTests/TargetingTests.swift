import FeatureFlags
import Testing

/// JsonLogic operators as flagd documents them, and flagd's own operators.
@Suite("Targeting rules")
struct TargetingTests {
    /// Evaluates `rule` for a string flag whose variants are "yes" and "no", with `attributes`,
    /// and returns the variant picked (nil for the default path).
    private func pick(_ rule: String, _ attributes: [String: FlagValue] = [:], targetingKey: String? = nil) throws
        -> String?
    {
        let json = """
            { "flags": { "f": { "state": "ENABLED", "variants": { "yes": "Y", "no": "N" },
              "targeting": { "if": [\(rule), "yes", "no"] } } } }
            """
        let details = try store(json).evaluation(
            "f", default: "?", context: .init(targetingKey: targetingKey, attributes: attributes))
        #expect(details.errorCode == nil, "\(details)")
        return details.variant
    }

    private func holds(_ rule: String, _ attributes: [String: FlagValue] = [:]) throws -> Bool {
        try pick(rule, attributes) == "yes"
    }

    @Test("equality, loose and strict, as flagd's table shows")
    func equality() throws {
        #expect(try holds(#"{"==": [1, 1]}"#))
        #expect(try holds(#"{"==": [1, "1"]}"#))
        #expect(!(try holds(#"{"===": [1, "1"]}"#)))
        #expect(try holds(#"{"!=": [1, 2]}"#))
        #expect(!(try holds(#"{"!=": [1, "1"]}"#)))
        #expect(try holds(#"{"!==": [1, "1"]}"#))
        #expect(try holds(#"{"==": [0, false]}"#))
        #expect(!(try holds(#"{"==": [null, 0]}"#)))
    }

    @Test("truthiness: !! and !")
    func truthiness() throws {
        #expect(try holds(#"{"!!": ["mike"]}"#))
        #expect(!(try holds(#"{"!!": [""]}"#)))
        #expect(!(try holds(#"{"!!": [[]]}"#)))
        #expect(!(try holds(#"{"!": ["mike"]}"#)))
        #expect(try holds(#"{"!": [""]}"#))
        #expect(try holds(#"{"!": {"var": "missing"}}"#))
    }

    @Test("ordering and between")
    func ordering() throws {
        #expect(try holds(#"{">": [2, 1]}"#))
        #expect(try holds(#"{">=": [1, 1]}"#))
        #expect(try holds(#"{"<": [1, 2]}"#))
        #expect(try holds(#"{"<=": [1, 1]}"#))
        #expect(try holds(#"{"<": [1, 5, 10]}"#))
        #expect(!(try holds(#"{"<": [1, 11, 10]}"#)))
        #expect(try holds(#"{"<=": [1, 1, 10]}"#))
        #expect(try holds(#"{"<": ["a", "b"]}"#))
        #expect(try holds(#"{">": ["10", 9]}"#))
    }

    @Test("in: substring and membership")
    func contains() throws {
        #expect(try holds(#"{"in": ["Spring", "Springfield"]}"#))
        #expect(!(try holds(#"{"in": ["Illinois", "Springfield"]}"#)))
        #expect(try holds(#"{"in": ["Mike", ["Bob", "Mike"]]}"#))
        #expect(!(try holds(#"{"in": ["Todd", ["Bob", "Mike"]]}"#)))
        #expect(try holds(#"{"in": [{"var": "user"}, ["alice", "bob"]]}"#, ["user": "bob"]))
    }

    @Test("and, or, if with else-if chains")
    func logic() throws {
        #expect(try holds(#"{"and": [true, {"==": [1, 1]}]}"#))
        #expect(!(try holds(#"{"and": [true, false]}"#)))
        #expect(try holds(#"{"or": [false, {"var": "x"}]}"#, ["x": 1]))
        let chain = #"{"if": [false, false, {"==": [{"var": "tier"}, "gold"]}, true, false]}"#
        #expect(try holds(chain, ["tier": "gold"]))
        #expect(!(try holds(chain, ["tier": "iron"])))
        #expect(try holds(#"{"?:": [true, true, false]}"#))
    }

    @Test("var: nested paths, array indices, defaults")
    func variables() throws {
        let user: FlagValue = ["name": "ann", "roles": ["admin", "dev"]]
        #expect(try holds(#"{"==": [{"var": "user.name"}, "ann"]}"#, ["user": user]))
        #expect(try holds(#"{"==": [{"var": "user.roles.1"}, "dev"]}"#, ["user": user]))
        #expect(try holds(#"{"==": [{"var": ["nobody", "fallback"]}, "fallback"]}"#))
        #expect(try holds(#"{"==": [{"var": "targetingKey"}, "k-1"]}"#) == false)
        #expect(try pick(#"{"==": [{"var": "targetingKey"}, "k-1"]}"#, targetingKey: "k-1") == "yes")
    }

    @Test("missing and missing_some")
    func missing() throws {
        #expect(try holds(#"{"==": [{"cat": {"missing": ["a", "b"]}}, "b"]}"#, ["a": 1]))
        #expect(try holds(#"{"!": {"missing_some": [1, ["a", "b"]]}}"#, ["b": "x"]))
        #expect(!(try holds(#"{"!": {"missing_some": [2, ["a", "b"]]}}"#, ["b": "x"])))
    }

    @Test("arithmetic, min and max")
    func arithmetic() throws {
        #expect(try holds(#"{"==": [{"+": [1, "2", 3]}, 6]}"#))
        #expect(try holds(#"{"==": [{"-": [10, 4]}, 6]}"#))
        #expect(try holds(#"{"==": [{"-": [4]}, -4]}"#))
        #expect(try holds(#"{"==": [{"*": [2, 3]}, 6]}"#))
        #expect(try holds(#"{"==": [{"/": [9, 3]}, 3]}"#))
        #expect(try holds(#"{"==": [{"%": [7, 3]}, 1]}"#))
        #expect(try holds(#"{"==": [{"max": [1, 9, 3]}, 9]}"#))
        #expect(try holds(#"{"==": [{"min": [4, 2, 3]}, 2]}"#))
    }

    @Test("arrays: map, filter, reduce, all, none, some, merge")
    func arrays() throws {
        let scores: FlagValue = [10, 60, 90]
        #expect(
            try holds(
                #"{"==": [{"reduce": [{"var": "s"}, {"+": [{"var": "current"}, {"var": "accumulator"}]}, 0]}, 160]}"#,
                ["s": scores]))
        #expect(
            try holds(
                #"{"===": [{"cat": {"map": [{"var": "s"}, {"*": [{"var": ""}, 2]}]}}, "20,120,180"]}"#, ["s": scores]))
        #expect(
            try holds(
                #"{"==": [{"cat": {"filter": [{"var": "s"}, {">": [{"var": ""}, 50]}]}}, "60,90"]}"#, ["s": scores]))
        #expect(try holds(#"{"all": [{"var": "s"}, {">": [{"var": ""}, 5]}]}"#, ["s": scores]))
        #expect(!(try holds(#"{"all": [[], true]}"#)))
        #expect(try holds(#"{"none": [{"var": "s"}, {">": [{"var": ""}, 100]}]}"#, ["s": scores]))
        #expect(try holds(#"{"some": [{"var": "s"}, {">": [{"var": ""}, 80]}]}"#, ["s": scores]))
        #expect(try holds(#"{"in": ["c", {"merge": [["a"], ["b", "c"], "d"]}]}"#))
    }

    @Test("strings: cat, substr")
    func strings() throws {
        #expect(try holds(#"{"==": [{"cat": ["a", 1, true]}, "a1true"]}"#))
        #expect(try holds(#"{"==": [{"substr": ["jsonlogic", 4]}, "logic"]}"#))
        #expect(try holds(#"{"==": [{"substr": ["jsonlogic", -5]}, "logic"]}"#))
        #expect(try holds(#"{"==": [{"substr": ["jsonlogic", 1, 3]}, "son"]}"#))
        #expect(try holds(#"{"==": [{"substr": ["jsonlogic", 4, -2]}, "log"]}"#))
    }

    @Test("starts_with and ends_with; a non-string makes the rule null")
    func stringComparison() throws {
        #expect(try holds(#"{"starts_with": ["192.168.0.1", "192.168"]}"#))
        #expect(!(try holds(#"{"starts_with": ["10.0.0.1", "192.168"]}"#)))
        #expect(try holds(#"{"ends_with": ["noreply@example.com", "@example.com"]}"#))
        #expect(!(try holds(#"{"ends_with": ["noreply@example.com", "@test.com"]}"#)))
        #expect(!(try holds(#"{"starts_with": [{"var": "n"}, "1"]}"#, ["n": 123])))
    }

    @Test("strings as JavaScript sees them: UTF-16 code units, no normalization")
    func javaScriptStrings() throws {
        // "zoe" + combining diaeresis and the precomposed "zoë" are different strings in JavaScript.
        #expect(!(try holds(#"{"==": [{"var": "name"}, "zo\u00eb"]}"#, ["name": "zoe\u{308}"])))
        #expect(!(try holds(#"{"===": [{"var": "name"}, "zo\u00eb"]}"#, ["name": "zoe\u{308}"])))
        #expect(try holds(#"{"===": [{"var": "name"}, "zo\u00eb"]}"#, ["name": "zo\u{EB}"]))
        #expect(!(try holds(#"{"in": ["zo\u00eb", ["zoe\u0308"]]}"#)))
        #expect(!(try holds(#"{"in": ["\u00eb", "zoe\u0308"]}"#)))
        #expect(try holds(#"{"in": ["", "anything"]}"#))
        #expect(try holds(#"{"in": ["", ""]}"#))
        // An emoji is two code units: substr and starts_with count them.
        #expect(try holds(#"{"==": [{"substr": ["\ud83d\ude00abc", 2]}, "abc"]}"#))
        #expect(try holds(#"{"==": [{"substr": ["a\ud83d\ude00b", -1]}, "b"]}"#))
        #expect(try holds(#"{"starts_with": ["\ud83d\ude00abc", "\ud83d\ude00"]}"#))
        #expect(!(try holds(#"{"starts_with": ["e\u0301", "\u00e9"]}"#)))
        #expect(try holds(#"{"ends_with": ["cafe\u0301", "e\u0301"]}"#))
        // Ordering by code unit: U+FF5E sorts after the surrogates of U+1F600, unlike scalar order.
        #expect(try holds(#"{"<": ["\ud83d\ude00", "\uff5e"]}"#))
        #expect(try holds(#"{"<": ["Z", "a"]}"#))
    }

    @Test("numbers: integral doubles equal integers, JavaScript's spelling in text, no trap on huge values")
    func javaScriptNumbers() throws {
        #expect(try holds(#"{"===": [1, 1.0]}"#))
        #expect(try holds(#"{"==": [{"var": "n"}, 2]}"#, ["n": 2.0]))
        #expect(
            try holds(
                #"{"==": [{"cat": [0.1, "|", 1e-7, "|", 0.000001, "|", 1e21, "|", 123456789012345680000]}, "0.1|1e-7|0.000001|1e+21|123456789012345680000"]}"#
            ))
        #expect(try holds(#"{"==": [{"cat": [-1.5, "|", 1.5e300, "|", 2e-7]}, "-1.5|1.5e+300|2e-7"]}"#))
        #expect(try holds(#"{"==": [{"substr": ["abc", 1e300]}, ""]}"#))
        #expect(try holds(#"{"==": [{"substr": ["abc", -1e300, 1e300]}, "abc"]}"#))
        #expect(!(try holds(#"{">": [{"var": "n"}, 1e308]}"#, ["n": 1e308])))
        // -2^63 is an exact Int64 whose abs() traps: it printed by crashing (found by the CBOR vectors).
        #expect(try holds(#"{"==": [{"cat": [-9223372036854775808]}, "-9223372036854776000"]}"#))
        #expect(FlagValue.number(-0x1p63).description == "-9223372036854776000")
    }

    @Test("$ref to shared evaluators, including one evaluator using another")
    func sharedEvaluators() throws {
        let json = """
            { "flags": {
                "f": { "state": "ENABLED", "variants": { "yes": true, "no": false }, "defaultVariant": "no",
                       "targeting": { "if": [{ "$ref": "staff" }, "yes", null] } } },
              "$evaluators": {
                "faas": { "in": ["@faas.com", { "var": ["email"] }] },
                "staff": { "and": [{ "$ref": "faas" }, { "!": { "var": "contractor" } }] }
              } }
            """
        let flags = try store(json)
        #expect(flags.value("f", default: false, context: .init(attributes: ["email": "ann@faas.com"])) == true)
        #expect(
            flags.value(
                "f", default: false, context: .init(attributes: ["email": "ann@faas.com", "contractor": true])) == false
        )
        #expect(flags.value("f", default: false, context: .init(attributes: ["email": "ann@other.com"])) == false)
    }
}
