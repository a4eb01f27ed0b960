import Foundation
import TestSupport
import Testing

/// `capctl flags`, `validate` and `watch`.
@Suite("capctl flags, validate and watch", .timeLimit(.minutes(2)))
struct CapctlFlagsTests {
    static let flags = """
        {"flags": {
          "color": {"state": "ENABLED", "variants": {"red": "#f00", "blue": "#00f"}, "defaultVariant": "red",
                    "targeting": {"if": [{"==": [{"var": "tier"}, "gold"]}, "blue", null]}, "metadata": {"owner": "ui"}},
          "limit": {"state": "ENABLED", "variants": {"low": 10, "high": 100}, "defaultVariant": "low",
                    "targeting": {"if": [{">": [{"var": "load"}, 5]}, "high", null]}}
        }}
        """

    @Test("flags get --json prints OpenFeature's evaluation details")
    func get() throws {
        let tree = try PolicyTree()
        let file = try tree.write("flags.json", Self.flags)
        let gold = try #require(
            try tree.capctl(["flags", "get", "color", "--file", file, "--context", "tier=\"gold\"", "--json"]).json()
                as? [String: Any])
        #expect(gold["key"] as? String == "color")
        #expect(gold["value"] as? String == "#00f")
        #expect(gold["variant"] as? String == "blue")
        #expect(gold["reason"] as? String == "TARGETING_MATCH")
        #expect(gold["errorCode"] is NSNull)
        #expect((gold["flagMetadata"] as? [String: Any])?["owner"] as? String == "ui")

        let bare = try #require(
            try tree.capctl(["flags", "get", "color", "--file", file, "--context", "tier=gold", "--json"]).json()
                as? [String: Any])
        #expect(bare["variant"] as? String == "blue", "a value that is not JSON is a string")

        let number = try #require(
            try tree.capctl(["flags", "get", "limit", "--type", "int", "--file", file, "--context", "load=7", "--json"])
                .json() as? [String: Any])
        #expect(number["value"] as? Int == 100)
    }

    @Test(
        "errors come back as details: exit status 64 for an unknown flag name (as for gates), 1 for an evaluation error"
    )
    func errors() throws {
        let tree = try PolicyTree()
        let file = try tree.write("flags.json", Self.flags)
        let missing = try tree.capctl(["flags", "get", "nothing", "--file", file, "--default", "true", "--json"])
        #expect(missing.status == 64)
        let object = try #require(try missing.json() as? [String: Any])
        #expect(object["errorCode"] as? String == "FLAG_NOT_FOUND")
        #expect(object["value"] as? Bool == true)
        let mismatchRun = try tree.capctl(["flags", "get", "color", "--type", "bool", "--file", file, "--json"])
        #expect(mismatchRun.status == 1)
        let mismatch = try #require(try mismatchRun.json() as? [String: Any])
        #expect(mismatch["errorCode"] as? String == "TYPE_MISMATCH")
    }

    @Test("flags list shows every flag")
    func list() throws {
        let tree = try PolicyTree()
        let file = try tree.write("flags.json", Self.flags)
        let listed = try #require(
            try tree.capctl(["flags", "list", "--file", file, "--json"]).json() as? [[String: Any]])
        #expect(listed.compactMap { $0["key"] as? String } == ["color", "limit"])
    }

    @Test("validate checks flag files and policy files, with positions")
    func validate() throws {
        let tree = try PolicyTree()
        let good = try tree.write("flags.json", Self.flags)
        let bad = try tree.write(
            "bad-flags.json",
            "{\"flags\": {\"f\": {\"state\": \"ENABLED\",\n \"variants\": {\"on\": true}, \"defaultVariant\": \"off\"}}}"
        )
        let policy = try tree.write("policy.yaml", "gates:\n  g: { require: { all-of: [] } }\n")
        #expect(try tree.capctl(["validate", good]).status == 0)
        let run = try tree.capctl(["validate", good, bad, policy])
        #expect(run.status == 78)
        #expect(run.output.contains("\(bad):2:46: default variant \"off\" is not a variant"), "\(run.output)")
        #expect(run.output.contains("\(policy):2:"), "\(run.output)")
    }

    @Test("layer order decides between flag files and inline flags: an admin's inline flag beats a vendor's file")
    func layerOrderAcrossForms() throws {
        let tree = try PolicyTree()
        try tree.write(
            "usr-share/vendor-flags.json",
            """
            {"flags": {"export": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off"}}}
            """)
        try tree.write(
            "usr-share/policy.yaml",
            """
            flags: { files: [vendor-flags.json] }
            capabilities:
              export-on: { kind: flag, flag: export }
            gates:
              export: { require: export-on }
            """)
        try tree.write(
            "etc/policy.yaml",
            """
            flags:
              inline:
                flags:
                  export: { state: ENABLED, variants: { "on": true, "off": false }, defaultVariant: "on" }
            """)
        let get = try tree.capctl(["flags", "get", "export", "--json"])
        let details = try #require(try get.json() as? [String: Any])
        #expect(details["value"] as? Bool == true, "\(get.output)")
        #expect(try tree.capctl(["check", "export"]).status == 0)
        let validated = try tree.capctl(["validate"])
        #expect(validated.status == 0, "\(validated.output)")
        #expect(
            validated.output.contains(
                "note: \(tree.admin)/policy.yaml:4:7: flag \"export\" replaces the one at \(tree.vendor)/vendor-flags.json:1:"
            ), "\(validated.output)")
        // The other way round too: a runtime file beats the admin's inline flag.
        try tree.write(
            "run/runtime-flags.json",
            """
            {"flags": {"export": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off"}}}
            """)
        try tree.write("run/policy.yaml", "flags: { files: [runtime-flags.json] }\n")
        #expect(try tree.capctl(["check", "export"]).status == 1)
        // Gates and capabilities redefined by a later layer are reported as well.
        try tree.write("etc/policy.d/50-local.yaml", "gates:\n  export: { require: { not: export-on } }\n")
        let again = try tree.capctl(["validate", "--json"])
        let object = try #require(try again.json() as? [String: Any])
        let overrides = try #require(object["overrides"] as? [String])
        #expect(
            overrides.contains { $0.contains("gate \"export\" replaces the one at \(tree.vendor)/policy.yaml:5:3") },
            "\(overrides)")
    }

    @Test("watch prints a line when a status changes")
    func watch() async throws {
        let tree = try PolicyTree()
        try tree.writeExportFlag(defaultVariant: "on")
        let watcher = try StreamingProcess(
            [PolicyTree.capctl, "watch", "export-on", "--json"], environment: tree.environment)
        let first = try #require(await watcher.nextLine())
        #expect(first.contains("\"status\":\"authorized\""))
        try tree.writeExportFlag(defaultVariant: "off")
        let second = try #require(await watcher.nextLine())
        #expect(second.contains("\"status\":\"denied\""), "\(second)")
        #expect(second.contains("\"name\":\"export-on\""))
    }
}
