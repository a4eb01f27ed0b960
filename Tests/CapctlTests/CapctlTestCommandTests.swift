import Foundation
import Glibc
import TestSupport
import Testing

/// `capctl test`: policy test files run through the built binary: the shipped example at full
/// coverage, failures named by file:line, coverage counted and compared in integers, JUnit for
/// CI, hermetic cases, and mistakes in a test file with their positions.
@Suite("capctl test", .timeLimit(.minutes(2)))
struct CapctlTestCommandTests {
    private static let examples =
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().path + "/../../Examples/Policies"

    @Test("the shipped example policy passes its tests at full coverage, and JUnit XML says so")
    func shippedExample() throws {
        let tree = try PolicyTree()
        let junit = tree.root + "/junit.xml"
        let run = try tree.capctl(["test", Self.examples, "--coverage", "--minimum-coverage", "100", "--junit", junit])
        #expect(run.status == 0, "\(run.output)\(run.error)")
        #expect(run.output.contains("ok: 10 of 10 case(s) passed"), "\(run.output)")
        #expect(run.output.contains("coverage: 38 of 38 node outcomes"), "\(run.output)")
        // Parsed by another XML reader than ours: Python's.
        let parsed = try runProcess(
            "/usr/bin/python3",
            [
                "-c",
                "import sys, xml.dom.minidom as m; r = m.parse(sys.argv[1]).documentElement; "
                    + "print(r.getAttribute('tests'), r.getAttribute('failures'), len(r.getElementsByTagName('testcase')))",
                junit,
            ])
        #expect(parsed.standardOutput == "10 0 10\n", "\(parsed.standardOutput)\(parsed.standardError)")
    }

    @Test(
        "every shipped policy has tests at full coverage, on any machine: a group this one lacks is a note, not an error"
    )
    func everyShippedPolicy() throws {
        let examples = URL(fileURLWithPath: Self.examples).deletingLastPathComponent().path
        let tree = try PolicyTree()
        let run = try tree.capctl(["test", examples, "--coverage", "--minimum-coverage", "100"])
        #expect(run.status == 0, "\(run.output)\(run.error)")
        #expect(run.output.contains("ok: 32 of 32 case(s) passed"), "\(run.output)")
        #expect(run.output.contains("coverage: 85 of 85 node outcomes"), "\(run.output)")
        if getgrnam("operators") == nil {
            #expect(
                run.output.contains(
                    #"note: not checked on this host: kind group: unknown group "operators" (not in the group database); the cases give the statuses"#
                ), "\(run.output)")
        }
        // What is wrong in the file itself is an error still.
        try tree.write("broken/policy.yaml", "capabilities:\n  x: { kind: group, grup: operators }\n")
        try tree.write("broken/x.test.yaml", "policy: [policy.yaml]\ncases: []\n")
        let broken = try tree.capctl(["test", tree.root + "/broken"])
        #expect(broken.status == 78 && broken.error.contains("grup"), "\(broken.output)\(broken.error)")
    }

    private func tree(cases: String) throws -> PolicyTree {
        let tree = try PolicyTree()
        try tree.write(
            "tests/policy.yaml",
            """
            capabilities:
              admin: { kind: pam, service: login }
              me: { kind: user, user: root }
            gates:
              export: { require: { all-of: [admin, me] } }
              other: { require: me }
            """)
        try tree.write("tests/export.test.yaml", "policy: [policy.yaml]\ncases:\n" + cases)
        return tree
    }

    @Test("a case that does not come out as expected is named by file:line, with what came and why; exit 1")
    func failingCase() throws {
        let tree = try tree(
            cases: """
                  - name: an administrator alone exports
                    gate: export
                    assume: { admin: authorized }
                    expect: holds

                """)
        let run = try tree.capctl(["test", tree.root + "/tests"])
        #expect(run.status == 1, "\(run.output)\(run.error)")
        // Hermetic: me is not assumed, so it is denied, though this test runs as root.
        #expect(
            run.output.contains(
                "FAIL \(tree.root)/tests/export.test.yaml:3:5: an administrator alone exports: gate export: expected holds, got fails (AuthorizedFor(me): failed:"
            ), "\(run.output)")
        #expect(run.output.contains("FAILED: 0 of 1 case(s) passed"), "\(run.output)")
    }

    @Test("coverage is counted in integers and compared exactly: one outcome short of a percentage fails")
    func coverageInIntegers() throws {
        let tree = try tree(
            cases: """
                  - gate: export
                    assume: { admin: authorized, me: authorized }
                    expect: holds

                """)
        let run = try tree.capctl(["test", tree.root + "/tests", "--coverage"])
        #expect(run.status == 0, "\(run.output)")
        // export: the gate 4 outcomes, admin 4, me 3; other: the gate 3, me 3. One case reaches 3.
        #expect(run.output.contains("coverage: 3 of 17 node outcomes"), "\(run.output)")
        #expect(run.output.contains("not reached: gate other: node 0 [0]: failed, passed, undecided"), "\(run.output)")
        // 3 of 17 is 17.6 %: 17 passes, 18 does not.
        #expect(try tree.capctl(["test", tree.root + "/tests", "--minimum-coverage", "17"]).status == 0)
        let short = try tree.capctl(["test", tree.root + "/tests", "--minimum-coverage", "18"])
        #expect(short.status == 1 && short.output.contains("coverage below 18 %"), "\(short.output)")
    }

    @Test("mistakes in a test file are errors with file:line:column; unknown names in a case fail it")
    func mistakes() throws {
        let tree = try tree(
            cases: """
                  - gate: export
                    asume: { admin: authorized }
                    expect: open
                  - gate: export
                    assume: { admin: yes }
                    expect: holds

                """)
        let run = try tree.capctl(["test", tree.root + "/tests/export.test.yaml"])
        #expect(run.status == 78, "\(run.output)\(run.error)")
        let file = tree.root + "/tests/export.test.yaml"
        #expect(run.error.contains("\(file):4:5: unknown key \"asume\" in a case"), "\(run.error)")
        #expect(run.error.contains("\(file):5:13: expect: \"open\" is no gate word"), "\(run.error)")
        #expect(run.error.contains("\(file):7:22: assume: admin is one of"), "\(run.error)")
        let unknown = try tree.capctl([
            "test",
            try tree.write(
                "tests/unknown.test.yaml",
                """
                policy: [policy.yaml]
                cases:
                  - gate: exprt
                    expect: holds
                  - gate: export
                    assume: { admn: authorized }
                    expect: fails
                """),
        ])
        #expect(unknown.status == 1, "\(unknown.output)")
        #expect(unknown.output.contains("the policy defines no gate \"exprt\""), "\(unknown.output)")
        #expect(unknown.output.contains("assume: the policy defines no capability \"admn\""), "\(unknown.output)")
    }
}

/// `capctl diff OLD NEW` through the built binary.
@Suite("capctl diff", .timeLimit(.minutes(2)))
struct CapctlDiffTests {
    /// A pam login and a group, and gate export needing both: what these tests change.
    static let exportPolicy = """
        capabilities:
          admin: { kind: pam, service: login }
          ops: { kind: group, group: root }
        gates:
          export: { require: { all-of: [admin, ops] } }
        """

    @Test("an equivalent rewrite is unchanged (exit 0); a change is shown with a counterexample (exit 1)")
    func diff() throws {
        let tree = try PolicyTree()
        let policy = Self.exportPolicy
        let old = try tree.write("old.yaml", policy)
        let same = try tree.write(
            "same.yaml",
            policy.replacingOccurrences(
                of: "{ all-of: [admin, ops] }", with: "{ not: { not: { all-of: [ops, admin] } } }"))
        let wider = try tree.write(
            "wider.yaml", policy.replacingOccurrences(of: "{ all-of: [admin, ops] }", with: "{ any-of: [admin, ops] }"))
        let unchanged = try tree.capctl(["diff", old, same])
        #expect(unchanged.status == 0, "\(unchanged.output)\(unchanged.error)")
        #expect(unchanged.output == "gate export: unchanged\n", "\(unchanged.output)")
        let changed = try tree.capctl(["diff", old, wider, "--json"])
        #expect(changed.status == 1, "\(changed.output)\(changed.error)")
        let gates = (try changed.json() as? [String: Any])?["gates"] as? [[String: Any]] ?? []
        #expect(gates.first?["change"] as? String == "decidesDifferently", "\(changed.output)")
        #expect(gates.first?["old"] as? String == "fails" && gates.first?["new"] as? String == "holds")
        let example = (gates.first?["counterexample"] as? [String: Any])?["capabilities"] as? [String: String] ?? [:]
        let given = example.sorted { $0.key < $1.key }.flatMap { ["--assume", "\($0.key)=\($0.value)"] }
        #expect(try tree.capctl(["check", "export", "--policy", old] + given).status == 1)
        #expect(try tree.capctl(["check", "export", "--policy", wider] + given).status == 0)
    }

    @Test(
        "--layers compares whole search paths: a staged root's drop-in shows; a final system keeps its gates from the user"
    )
    func layers() throws {
        let tree = try PolicyTree()
        try tree.write("usr-share/policy.yaml", Self.exportPolicy)
        try tree.write("staged/policy.d/50-wider.yaml", "gates:\n  export: { require: { any-of: [admin, ops] } }\n")
        try tree.write("user/policy.yaml", "gates:\n  export: { require: ops }\n  mine: { require: ops }\n")
        let installed = tree.vendor
        let changed = try tree.capctl(["diff", "--layers", installed, installed + ":" + tree.root + "/staged"])
        #expect(changed.status == 1, "\(changed.output)\(changed.error)")
        #expect(changed.output.contains("gate export: decides differently: with "), "\(changed.output)")
        // The per-user layer replaces export, unless the system is final.
        let user = "user=" + tree.root + "/user"
        let open = try tree.capctl(["diff", "--layers", installed, installed + ":" + user])
        #expect(open.output.contains("gate export: decides differently") && open.output.contains("gate mine: added"))
        try tree.write("etc/policy.yaml", "final: true\n")
        let system = installed + ":" + tree.admin
        let final = try tree.capctl(["diff", "--layers", system, system + ":" + user])
        #expect(
            final.output.contains("gate export: unchanged") && final.output.contains("gate mine: added"),
            "\(final.output)")
        let misuse = try tree.capctl(["diff", "--layers", user + ":" + installed, installed])
        #expect(misuse.status == 64 && misuse.error.contains("user=DIR must come last"), "\(misuse.error)")
    }

    @Test("validate --installed says what a staged drop-in changes in the installed policy's decisions")
    func validateInstalledChanges() throws {
        let tree = try PolicyTree()
        try tree.write("etc/policy.yaml", Self.exportPolicy + "\n  other: { require: ops }\n")
        let staged = try tree.write(
            "staging/50-wider.yaml",
            "gates:\n  export: { require: { any-of: [admin, ops] } }\n  extra: { require: ops }\n")
        let run = try tree.capctl(["validate", "--installed", staged])
        #expect(run.status == 0, "\(run.output)\(run.error)")
        #expect(
            run.output.contains(
                "change: gate export decides differently with \(staged): with admin=authorized, ops=denied: now fails, then holds"
            ),
            "\(run.output)")
        #expect(run.output.contains("change: gate extra is added by \(staged)"), "\(run.output)")
        #expect(!run.output.contains("gate other"), "an unchanged gate is not named")
    }
}
