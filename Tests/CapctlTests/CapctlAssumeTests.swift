import Foundation
import Glibc
import TestSupport
import Testing

/// `capctl check --assume` and `--assume-flag`: a gate decided with statuses and flag values
/// given, nobody asked, the gate's word and exit status those of Semantics rule 49.
@Suite("capctl check --assume", .timeLimit(.minutes(2)))
struct CapctlAssumeTests {
    private func tree() throws -> PolicyTree {
        let tree = try PolicyTree()
        try tree.matrixService("assume-test")
        try tree.write(
            "etc/policy.yaml",
            """
            capabilities:
              admin: { kind: pam, service: assume-test, user: alice, service-directory: \(tree.root)/pam }
              nobody-here: { kind: user, user: nobody }
              storage-s3: { kind: flag, flag: storage, equals: s3 }
            flags:
              inline:
                flags:
                  beta: { state: ENABLED, variants: { "on": true, "off": false }, defaultVariant: "off" }
                  storage: { state: ENABLED, variants: { s3: s3, local: local }, defaultVariant: local }
            gates:
              export: { require: { all-of: [admin, { flag: beta }] } }
              quiet: { require: { not: { silent: admin } } }
              either: { require: { any-of: [admin, nobody-here] } }
              s3: { require: storage-s3 }
            """)
        return tree
    }

    @Test(
        "each status word of an assumed capability gives the gate's word and exit status, nobody asked",
        arguments: [
            ("authorized", "holds", Int32(0)), ("denied", "fails", 1), ("unavailable", "undecided", 1),
            ("notDetermined", "needsInteraction", 2),
        ])
    func statuses(status: String, word: String, exit: Int32) throws {
        let tree = try tree()
        // No password on standard input: an attempt to ask would be dismissed (exit 3).
        let run = try tree.capctl([
            "check", "export", "--assume", "admin=\(status)", "--assume-flag", "beta=true", "--json",
        ])
        #expect(run.status == exit, "\(run.output)\(run.error)")
        let json = try run.json() as? [String: Any] ?? [:]
        #expect(json["status"] as? String == word, "\(run.output)")
        let assumed = json["assumed"] as? [String: Any]
        #expect((assumed?["capabilities"] as? [String: String])?["admin"] == status, "\(run.output)")
        #expect((assumed?["flags"] as? [String: Bool])?["beta"] == true, "\(run.output)")
    }

    @Test("silent and not over an assumed login; any-of with the real status of what is not assumed")
    func composition() throws {
        let tree = try tree()
        #expect(try tree.capctl(["check", "quiet", "--assume", "admin=notDetermined"]).status == 0, "rule 17")
        #expect(try tree.capctl(["check", "quiet", "--assume", "admin=authorized"]).status == 1)
        // nobody-here is decided as it stands (this test does not run as nobody): denied.
        let either = try tree.capctl(["check", "either", "--assume", "admin=denied", "--explain"])
        #expect(either.status == 1, "\(either.output)")
        #expect(either.output.contains("assumed (not asked, not read): admin=denied"), "\(either.output)")
        #expect(either.output.contains("AuthorizedFor(admin): failed: denied, requires authorized: assumed denied"))
        #expect(
            try tree.capctl(["check", "either", "--assume", "nobody-here=authorized", "--assume", "admin=denied"])
                .status == 0)
    }

    @Test("an assumed flag: on, off, not a Boolean; and through a capability of kind flag")
    func flags() throws {
        let tree = try tree()
        let gate = ["check", "export", "--assume", "admin=authorized"]
        #expect(try tree.capctl(gate).status == 1, "beta is off in the file")
        #expect(try tree.capctl(gate + ["--assume-flag", "beta=true"]).status == 0)
        #expect(try tree.capctl(gate + ["--assume-flag", "beta=false"]).status == 1)
        let text = try tree.capctl(gate + ["--assume-flag", "beta=\"yes\"", "--json"])
        #expect((try text.json() as? [String: Any] ?? [:])["status"] as? String == "undecided", "\(text.output)")
        #expect(try tree.capctl(["check", "s3"]).status == 1, "storage is local in the file")
        #expect(try tree.capctl(["check", "s3", "--assume-flag", "storage=s3"]).status == 0)
        let mismatch = try tree.capctl(["check", "s3", "--assume-flag", "storage=3", "--json"])
        #expect(
            (try mismatch.json() as? [String: Any] ?? [:])["status"] as? String == "undecided", "\(mismatch.output)")
    }

    @Test("a name the policy does not define, a status that is no status, a pair without '=': usage errors")
    func mistakes() throws {
        let tree = try tree()
        let unknown = try tree.capctl(["check", "export", "--assume", "admn=authorized"])
        #expect(unknown.status == 64)
        #expect(
            unknown.error.contains("no capability \"admn\" in the policy (did you mean \"admin\"?)"), "\(unknown.error)"
        )
        let word = try tree.capctl(["check", "export", "--assume", "admin=yes"])
        #expect(
            word.status == 64 && word.error.contains("authorized, denied, notDetermined, unavailable"), "\(word.error)")
        #expect(try tree.capctl(["check", "export", "--assume", "admin"]).status == 64)
        let flag = try tree.capctl(["check", "export", "--assume-flag", "bta=true"])
        #expect(flag.status == 64 && flag.error.contains("reads flag \"bta\""), "\(flag.error)")
        // The argument parser's reading and the fast reader's agree (CheckRequestTests): so does explain.
        #expect(
            try tree.capctl(["explain", "export", "--assume", "admin=authorized", "--assume-flag", "beta=true"]).status
                == 0)
    }
}

/// `capctl analyze GATE` through the built binary: the words, a witness given back to `check
/// --assume`, and the exit status (1 for a gate that can never hold).
@Suite("capctl analyze", .timeLimit(.minutes(2)))
struct CapctlAnalyzeTests {
    @Test("a gate that can hold exits 0 with a witness check --assume agrees with; one that never can exits 1")
    func analyze() throws {
        let tree = try PolicyTree()
        try tree.write(
            "etc/policy.yaml",
            """
            capabilities:
              admin: { kind: pam, service: login }
              ops: { kind: group, group: root }
              me: { kind: user, user: root }
            gates:
              export: { require: { all-of: [admin, { any-of: [ops, { all-of: [ops, me] }] }] } }
              impossible: { require: { all-of: [me, { not: me }] } }
            """)
        let export = try tree.capctl(["analyze", "export", "--json"])
        #expect(export.status == 0, "\(export.output)\(export.error)")
        let json = try export.json() as? [String: Any] ?? [:]
        #expect(json["canHold"] as? Bool == true && json["canAsk"] as? Bool == true, "\(export.output)")
        #expect(json["neverMatters"] as? [String] == ["me"], "\(export.output)")
        let holds = (json["holdsWhen"] as? [String: Any])?["capabilities"] as? [String: String] ?? [:]
        #expect(holds["admin"] == "authorized" && holds["ops"] == "authorized", "\(holds)")
        let given = holds.sorted { $0.key < $1.key }.flatMap { ["--assume", "\($0.key)=\($0.value)"] }
        #expect(try tree.capctl(["check", "export"] + given).status == 0, "the witness holds when given back")
        let impossible = try tree.capctl(["analyze", "impossible"])
        #expect(impossible.status == 1, "\(impossible.output)")
        #expect(impossible.output.contains("can hold: no"), "\(impossible.output)")
        #expect(try tree.capctl(["analyze", "exprt"]).status == 64)
    }
}
