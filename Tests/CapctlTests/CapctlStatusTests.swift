import Foundation
import TestSupport
import Testing

/// `capctl status` and layering, run as a user would run the binary.
@Suite("capctl status and layering", .timeLimit(.minutes(2)))
struct CapctlStatusTests {
    private func statuses(_ run: CapctlRun) throws -> [String: [String: Any]] {
        try run.entries("capabilities", "flags", "gates")
    }

    @Test("with no policy at all, the host's built-in capabilities")
    func builtIn() throws {
        let tree = try PolicyTree()
        let run = try tree.capctl(["status", "--json"])
        #expect(run.status == 0, "\(run.error)")
        let entries = try statuses(run)
        for name in ["user", "groups", "process-capabilities", "network", "home", "working-directory"] {
            #expect(entries[name] != nil, "missing \(name)")
        }
        #expect(entries["home"]?["status"] as? String == "authorized")
        let object = try #require(try run.json() as? [String: Any])
        #expect(object["flags"] is [Any] && object["gates"] is [Any])
        // NO_COLOR is unset here, so only "standard output is not a terminal" can keep colour out.
        var environment = tree.environment
        environment.removeValue(forKey: "NO_COLOR")
        environment["TERM"] = "xterm-256color"
        let table = try runProcess(PolicyTree.capctl, ["status"], environment: environment)
        #expect(table.standardOutput.hasPrefix("NAME"))
        #expect(!table.standardOutput.contains("\u{1B}["), "no colour when not on a terminal")
    }

    @Test("vendor, admin and runtime files and drop-ins layer; a later definition replaces an earlier one")
    func layering() throws {
        let tree = try PolicyTree()
        try tree.write(
            "usr-share/policy.yaml",
            """
            capabilities:
              data: { kind: file, path: /nonexistent/data, access: [read] }
              spool: { kind: file, path: /nonexistent/spool }
            gates:
              export: { require: data }
            """)
        try tree.write(
            "etc/policy.d/20-data.yaml", "capabilities:\n  data: { kind: file, path: /tmp, access: [read] }\n")
        try tree.write("etc/policy.d/10-data.yaml", "capabilities:\n  data: { kind: file, path: /nonexistent/ten }\n")
        var entries = try statuses(try tree.capctl(["status", "--json"]))
        #expect(entries["data"]?["status"] as? String == "authorized", "20-data.yaml comes after 10-data.yaml")
        #expect(entries["spool"]?["status"] as? String == "unavailable")
        #expect(entries["export"]?["status"] as? String == "holds")

        try tree.write("run/policy.yaml", "capabilities:\n  data: { kind: file, path: /nonexistent/runtime }\n")
        entries = try statuses(try tree.capctl(["status", "--json"]))
        #expect(entries["data"]?["status"] as? String == "unavailable", "runtime files override admin files")
        #expect(
            entries["export"]?["status"] as? String == "undecided",
            "a missing file is unavailable: not decided, never a pass")

        let only = try tree.write("elsewhere.yaml", "capabilities:\n  tmp: { kind: file, path: /tmp }\n")
        entries = try statuses(try tree.capctl(["status", "--json", "--policy", only]))
        #expect(entries.keys.sorted() == ["tmp"], "--policy replaces the search")
    }

    @Test("naming entries: exit statuses follow them; an unknown name is a usage error")
    func names() throws {
        let tree = try PolicyTree()
        try tree.write(
            "etc/policy.yaml",
            """
            capabilities:
              tmp: { kind: file, path: /tmp }
              missing: { kind: file, path: /nonexistent }
            """)
        #expect(try tree.capctl(["status", "tmp"]).status == 0)
        #expect(try tree.capctl(["status", "missing"]).status == 1)
        let unknown = try tree.capctl(["status", "nothing"])
        #expect(unknown.status == 64)
        #expect(unknown.error.contains("no capability, flag or gate named \"nothing\""))
    }

    @Test("flags show their evaluated value and OpenFeature's reason, not their state")
    func flags() throws {
        let tree = try PolicyTree()
        let flagFile = try tree.write(
            "flags/flags.json",
            """
            {"flags": {"beta": {"state": "DISABLED", "variants": {"on": true, "off": false}, "defaultVariant": "on"},
                       "export": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "on"}}}
            """)
        try tree.write("etc/policy.yaml", "flags:\n  files: [\(flagFile)]\n")
        let entries = try statuses(try tree.capctl(["status", "--json"]))
        #expect(entries["beta"]?["status"] as? String == "(code default)")
        #expect(entries["beta"]?["reason"] as? String == "DISABLED")
        #expect(entries["export"]?["status"] as? String == "true")
        #expect(entries["export"]?["reason"] as? String == "STATIC, variant on")
        #expect(entries["export"]?["value"] as? Bool == true)
        #expect(entries["export"]?["kind"] as? String == "flag")
    }

    /// Semantics rules 40 and 41.
    @Test("--context: status, check and run see the flags a service sees with its context")
    func flagContext() throws {
        let tree = try PolicyTree()
        let flagFile = try tree.write(
            "flags/flags.json",
            """
            {"flags": {"gold-export": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off",
              "targeting": {"if": [{"in": [{"var": "tier"}, ["gold", "platinum"]]}, "on"]}}}}
            """)
        try tree.write(
            "etc/policy.yaml",
            """
            flags:
              files: [\(flagFile)]
            gates:
              export: { require: { flag: gold-export } }
              not-export: { require: { not: { flag: gold-export } } }
            """)
        let plain = try statuses(try tree.capctl(["status", "--json"]))
        #expect(plain["gold-export"]?["status"] as? String == "false")
        #expect(plain["export"]?["status"] as? String == "fails")
        let gold = try statuses(try tree.capctl(["status", "--json", "--context", "tier=gold"]))
        #expect(gold["gold-export"]?["status"] as? String == "true")
        #expect(gold["gold-export"]?["reason"] as? String == "TARGETING_MATCH, variant on")
        #expect(gold["export"]?["status"] as? String == "holds")
        #expect(gold["not-export"]?["status"] as? String == "fails")

        #expect(try tree.capctl(["check", "export"]).status == 1)
        #expect(try tree.capctl(["check", "export", "--context", "tier=gold"]).status == 0)
        #expect(try tree.capctl(["check", "not-export", "--context", "tier=\"gold\""]).status == 1)
        #expect(try tree.capctl(["run", "export", "--context", "tier=gold", "--", "/bin/true"]).status == 0)
        #expect(try tree.capctl(["run", "export", "--context", "tier=iron", "--", "/bin/true"]).status == 77)
        let bad = try tree.capctl(["check", "export", "--context", "=gold"])
        #expect(bad.status == 64)
        #expect(bad.error.contains("--context takes key=value"))
    }

    @Test(
        "a file mixing valid and broken flags: the valid ones work, the broken ones are errors and fail their gates closed"
    )
    func brokenFlags() throws {
        let tree = try PolicyTree()
        let flagFile = try tree.write(
            "flags/flags.json",
            """
            {"flags": {
              "good": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "on"},
              "broken": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off",
                "targeting": {"if": [{"no_such_op": [1]}, "on", "off"]}}}}
            """)
        try tree.write(
            "etc/policy.yaml",
            """
            flags:
              files: [\(flagFile)]
            gates:
              good-gate: { require: { flag: good } }
              not-broken: { require: { not: { flag: broken } } }
            """)
        let status = try tree.capctl(["status", "--json"])
        #expect(status.status == 0)
        // Under --json, the warning is JSON too.
        #expect(
            status.error.contains(#"{"warning":"\#(flagFile):4:27: unknown operator \"no_such_op\""}"#),
            "\(status.error)")
        let entries = try statuses(status)
        #expect(entries["good"]?["status"] as? String == "true")
        #expect(entries["good-gate"]?["status"] as? String == "holds")
        #expect(entries["broken"]?["status"] as? String == "error")
        #expect((entries["broken"]?["reason"] as? String)?.hasPrefix("PARSE_ERROR") == true)
        #expect(entries["not-broken"]?["status"] as? String == "undecided")
        #expect(try tree.capctl(["check", "good-gate"]).status == 0)
        #expect(try tree.capctl(["check", "not-broken"]).status == 1)
        let validate = try tree.capctl(["validate"])
        #expect(validate.status == 78)
        #expect(
            validate.output.contains("unknown operator \"no_such_op\"")
                || validate.error.contains("unknown operator \"no_such_op\""))
        let flags = try tree.capctl(["flags", "get", "good"])
        #expect(flags.status == 0)
    }
}
