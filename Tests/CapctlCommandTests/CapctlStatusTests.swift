import Foundation
import Testing
import TestSupport

/// `capctl status` and layering, run as a user would run the binary.
@Suite("capctl status and layering", .timeLimit(.minutes(1)))
struct CapctlStatusTests {
    private func statuses(_ run: CapctlRun) throws -> [String: [String: Any]] {
        let object = try #require(try run.json() as? [String: Any])
        var byName: [String: [String: Any]] = [:]
        for section in ["capabilities", "flags", "gates"] {
            for entry in object[section] as? [[String: Any]] ?? [] { byName[entry["name"] as! String] = entry }
        }
        return byName
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
        try tree.write("usr-share/policy.yaml", """
            capabilities:
              data: { kind: file, path: /nonexistent/data, access: [read] }
              spool: { kind: file, path: /nonexistent/spool }
            gates:
              export: { require: data }
            """)
        try tree.write("etc/policy.d/20-data.yaml", "capabilities:\n  data: { kind: file, path: /tmp, access: [read] }\n")
        try tree.write("etc/policy.d/10-data.yaml", "capabilities:\n  data: { kind: file, path: /nonexistent/ten }\n")
        var entries = try statuses(try tree.capctl(["status", "--json"]))
        #expect(entries["data"]?["status"] as? String == "authorized", "20-data.yaml comes after 10-data.yaml")
        #expect(entries["spool"]?["status"] as? String == "unavailable")
        #expect(entries["export"]?["status"] as? String == "authorized")

        try tree.write("run/policy.yaml", "capabilities:\n  data: { kind: file, path: /nonexistent/runtime }\n")
        entries = try statuses(try tree.capctl(["status", "--json"]))
        #expect(entries["data"]?["status"] as? String == "unavailable", "runtime files override admin files")
        #expect(entries["export"]?["status"] as? String == "undecided", "a missing file is unavailable: not decided, never a pass")

        let only = try tree.write("elsewhere.yaml", "capabilities:\n  tmp: { kind: file, path: /tmp }\n")
        entries = try statuses(try tree.capctl(["status", "--json", "--policy", only]))
        #expect(entries.keys.sorted() == ["tmp"], "--policy replaces the search")
    }

    @Test("naming entries: exit statuses follow them; an unknown name is a usage error")
    func names() throws {
        let tree = try PolicyTree()
        try tree.write("etc/policy.yaml", """
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

    @Test("flags show as enabled or disabled, with their evaluation")
    func flags() throws {
        let tree = try PolicyTree()
        let flagFile = try tree.write("flags/flags.json", """
            {"flags": {"beta": {"state": "DISABLED", "variants": {"on": true, "off": false}, "defaultVariant": "on"},
                       "export": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "on"}}}
            """)
        try tree.write("etc/policy.yaml", "flags:\n  files: [\(flagFile)]\n")
        let entries = try statuses(try tree.capctl(["status", "--json"]))
        #expect(entries["beta"]?["status"] as? String == "disabled")
        #expect(entries["export"]?["status"] as? String == "enabled")
        #expect(entries["export"]?["value"] as? Bool == true)
        #expect(entries["export"]?["kind"] as? String == "flag")
    }
}
