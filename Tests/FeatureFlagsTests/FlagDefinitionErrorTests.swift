import ConfigurationFiles
import FeatureFlags
import Testing

/// Bad input: a clear error with file, line and column, never a crash or a silently enabled flag.
@Suite("Flag definition errors")
struct FlagDefinitionErrorTests {
    private func expectError(
        _ text: String, format: FlagFileFormat = .json, line: Int, column: Int? = nil, containing fragment: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard let error = definitionError(text, format: format) else {
            Issue.record("expected an error containing \"\(fragment)\"", sourceLocation: sourceLocation)
            return
        }
        #expect(error.message.contains(fragment), "\(error)", sourceLocation: sourceLocation)
        #expect(error.location?.line == line, "\(error)", sourceLocation: sourceLocation)
        if let column { #expect(error.location?.column == column, "\(error)", sourceLocation: sourceLocation) }
        #expect(
            error.description.hasPrefix("flags.\(format == .json ? "json" : "yaml"):\(line):"),
            sourceLocation: sourceLocation)
    }

    @Test("JSON syntax errors point at the character")
    func jsonSyntax() {
        expectError("{\n  \"flags\": {,\n}", line: 2, column: 13, containing: "member name")
        expectError("{\n  \"flags\": {}\n  \"x\": 1\n}", line: 3, column: 3, containing: "expected ',' or '}'")
        expectError("{\"flags\": {\"a\": tru}}", line: 1, column: 17, containing: "did you mean true")
        expectError("{\"flags\": \"unterminated}", line: 1, column: 11, containing: "unterminated string")
        expectError("{\"flags\": {}} extra", line: 1, column: 15, containing: "after the end")
        expectError("", line: 1, column: 1, containing: "found end of file")
        expectError("{\"flags\": 01}", line: 1, column: 11, containing: "leading zeros")
    }

    @Test("duplicate keys are errors, not last-one-wins")
    func duplicateKeys() {
        expectError("{\n\"flags\": {},\n\"flags\": {}\n}", line: 3, column: 1, containing: "duplicate key \"flags\"")
        expectError(
            "flags: {}\nflags: {}\n", format: FlagFileFormat.yaml, line: 2, column: 1,
            containing: "duplicate key \"flags\"")
    }

    @Test("deep nesting is refused, not a stack overflow")
    func deepNesting() {
        let deep = String(repeating: "[", count: 100_000)
        expectError(deep, line: 1, containing: "nested more than")
    }

    @Test("YAML syntax errors carry the position")
    func yamlSyntax() {
        expectError("flags:\n  a: [1, 2\n", format: FlagFileFormat.yaml, line: 2, column: 6, containing: "not closed")
        expectError(
            "flags:\n  f:\n    state: ENABLED\n   variants: {}\n", format: FlagFileFormat.yaml, line: 4, column: 4,
            containing: "indentation (column 4) matches no block above it: the blocks there start at columns 3 and 5")
    }

    @Test("structure: required and unknown properties, with positions")
    func structure() {
        expectError("{}", line: 1, column: 1, containing: "\"flags\" is required")
        expectError("{\"flags\": {}, \"flag\": {}}", line: 1, column: 15, containing: "unknown property \"flag\"")
        expectError(
            """
            {"flags": {"f": {"state": "ENABLED", "variants": {"on": true}, "defaultVariant": "on",
              "targetting": {"==": [1, 1]}}}}
            """, line: 2, column: 3, containing: "unknown property \"targetting\"")
        expectError(
            "{\"flags\": {\"f\": {\"variants\": {\"on\": true}}}}", line: 1, column: 12, containing: "needs \"state\"")
        expectError(
            "{\"flags\": {\"f\": {\"state\": \"ON\", \"variants\": {\"on\": true}}}}", line: 1, column: 27,
            containing: "\"ENABLED\" or \"DISABLED\"")
        expectError(
            "{\"flags\": {\"f\": {\"state\": \"ENABLED\"}}}", line: 1, column: 12, containing: "needs \"variants\"")
        expectError(
            "{\"flags\": {\"f\": {\"state\": \"ENABLED\", \"variants\": {}}}}", line: 1, column: 50,
            containing: "at least one variant")
    }

    @Test("variants: a missing default variant, mixed types, null values")
    func variants() {
        expectError(
            """
            {"flags": {"color": {"state": "ENABLED",
              "variants": {"red": "c05543", "blue": "0d507b"},
              "defaultVariant": "purple"}}}
            """, line: 3, column: 21, containing: "default variant \"purple\" is not a variant")
        expectError(
            """
            {"flags": {"f": {"state": "ENABLED",
              "variants": {"on": true, "off": "false"}}}}
            """, line: 2, column: 35, containing: "all variants must have one type")
        expectError(
            "{\"flags\": {\"f\": {\"state\": \"ENABLED\", \"variants\": {\"x\": null}}}}", line: 1, column: 56,
            containing: "null")
    }

    @Test("targeting: unknown operators, argument counts, $ref to nothing or in a cycle")
    func targeting() {
        func flag(_ targeting: String) -> String {
            "{\"flags\": {\"f\": {\"state\": \"ENABLED\", \"variants\": {\"on\": true, \"off\": false}, \"defaultVariant\": \"off\",\n\"targeting\": \(targeting)}}}"
        }
        expectError(
            flag("{\"if\": [{\"ends_wth\": [{\"var\": \"email\"}, \"@x\"]}, \"on\"]}"), line: 2, column: 23,
            containing: "unknown operator \"ends_wth\"")
        expectError(
            flag("{\"Ends_With\": [\"a\", \"b\"]}"), line: 2, column: 15, containing: "did you mean \"ends_with\"")
        expectError(
            flag("{\"fractionalEvaluation\": [\"email\", [\"on\", 100]]}"), line: 2, column: 15,
            containing: "use \"fractional\"")
        expectError(flag("{\"starts_with\": [\"a\"]}"), line: 2, column: 15, containing: "takes 2 arguments, found 1")
        expectError(flag("{\"==\": [1, 1], \"!=\": [1, 2]}"), line: 2, column: 14, containing: "exactly one operator")
        expectError(
            flag("{\"fractional\": [[\"on\", 50.5], [\"off\", 50]]}"), line: 2, column: 37, containing: "whole number")
        expectError(
            flag("{\"fractional\": [[\"on\", -1], [\"off\", 50]]}"), line: 2, column: 37, containing: "counts -1 as 0")
        expectError(flag("{\"$ref\": \"nobody\"}"), line: 2, column: 23, containing: "names no entry in $evaluators")
        expectError(
            """
            {"flags": {}, "$evaluators": {
              "a": {"!": {"$ref": "b"}},
              "b": {"!": {"$ref": "a"}}}}
            """, line: 3, containing: "$ref cycle")
    }

    @Test("metadata values are scalars")
    func metadata() {
        expectError(
            "{\"flags\": {}, \"metadata\": {\"team\": [\"a\"]}}", line: 1, column: 36, containing: "metadata values")
    }

    @Test("an unreadable file is an error naming the file")
    func unreadableFile() {
        #expect(throws: ConfigurationError.self) { try FlagSet.load(contentsOf: "/nonexistent/flags.json") }
        do {
            _ = try FlagSet.load(contentsOf: "/nonexistent/flags.json")
        } catch {
            #expect(error.description.hasPrefix("/nonexistent/flags.json: No such file or directory (/nonexistent)"))
        }
    }
}
