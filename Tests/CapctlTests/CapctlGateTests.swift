import Foundation
import TestSupport
import Testing

/// `check`, `run`, `authorize` and every exit status, through the built binary.
@Suite("capctl gates and exit statuses", .timeLimit(.minutes(2)))
struct CapctlGateTests {
    static let policy = """
        capabilities:
          tmp: { kind: file, path: /tmp, access: [read, write], type: directory }
          missing: { kind: file, path: /nonexistent/dir }
        gates:
          open: { require: tmp }
          closed: { require: { all-of: [tmp, missing] } }
          never: { require: { not: tmp } }
        """

    @Test("check: 0 when the gate holds, 1 when it does not, with the reason")
    func check() throws {
        let tree = try PolicyTree()
        try tree.write("etc/policy.yaml", Self.policy)
        #expect(try tree.capctl(["check", "open"]).status == 0)
        let closed = try tree.capctl(["check", "closed"])
        #expect(closed.status == 1)
        #expect(closed.output.hasPrefix("closed: undecided"))
        #expect(closed.output.contains("AuthorizedFor(missing): undecided"))
        #expect(closed.output.contains("/nonexistent/dir does not exist"))
    }

    @Test("check --explain shows every requirement; --json has the tree")
    func explain() throws {
        let tree = try PolicyTree()
        try tree.write("etc/policy.yaml", Self.policy)
        let explained = try tree.capctl(["check", "closed", "--explain"])
        #expect(explained.output.contains("AuthorizedFor(tmp): passed"))
        #expect(explained.output.contains("AuthorizedFor(missing): undecided"))
        let json = try #require(try tree.capctl(["check", "closed", "--json"]).json() as? [String: Any])
        #expect(json["status"] as? String == "undecided")
        #expect(json["explanation"] is [String: Any])
    }

    @Test("run passes the command's exit status through, and refuses with 77 when the gate fails")
    func run() throws {
        let tree = try PolicyTree()
        try tree.write("etc/policy.yaml", Self.policy)
        let passed = try tree.capctl(["run", "open", "--", "/bin/sh", "-c", "echo ran; exit 5"])
        #expect(passed.status == 5)
        #expect(passed.output == "ran\n")
        let marker = tree.root + "/ran"
        let refused = try tree.capctl(["run", "never", "--", "/usr/bin/touch", marker])
        #expect(refused.status == 77)
        #expect(refused.error.contains("not running /usr/bin/touch: gate never: fails"))
        #expect(!FileManager.default.fileExists(atPath: marker))
    }

    @Test(
        "an undecided gate is one verdict everywhere: status, check, run and watch say undecided and exit 1 (77 for run)"
    )
    func undecidedEverywhere() async throws {
        let tree = try PolicyTree()
        try tree.write("etc/policy.yaml", Self.policy)
        // `capctl status g && work` must not run the work.
        let status = try tree.capctl(["status", "closed"])
        #expect(status.status == 1, "\(status.output)")
        #expect(status.output.contains("undecided"))
        let statusJSON = try #require(try tree.capctl(["status", "closed", "--json"]).json() as? [String: Any])
        let gates = try #require(statusJSON["gates"] as? [[String: Any]])
        #expect(gates.first?["status"] as? String == "undecided")
        #expect(try tree.capctl(["status", "open", "closed"]).status == 1)
        #expect(try tree.capctl(["status", "open"]).status == 0)
        #expect(try tree.capctl(["check", "closed"]).status == 1)
        let run = try tree.capctl(["run", "closed", "--", "/bin/true"])
        #expect(run.status == 77)
        #expect(run.error.contains("gate closed: undecided"))
        let watcher = try StreamingProcess(
            [PolicyTree.capctl, "watch", "closed", "--json"], environment: tree.environment)
        let line = try #require(await watcher.nextLine())
        #expect(line.contains("\"status\":\"undecided\""), "\(line)")
        let plain = try StreamingProcess([PolicyTree.capctl, "watch", "closed"], environment: tree.environment)
        // TIME<TAB>NAME<TAB>STATUS<TAB>REASON.
        let fields = try #require(await plain.nextLine()).split(separator: "\t")
        #expect(fields.count == 4 && fields[1] == "closed" && fields[2] == "undecided", "\(fields)")
    }

    @Test(
        "the short failure output follows what did not pass: a failed flag under its passing not is no cause; explain is check --explain"
    )
    func failingPath() throws {
        let tree = try PolicyTree()
        try tree.write(
            "etc/policy.yaml",
            """
            capabilities:
              missing: { kind: file, path: /nonexistent/dir }
            flags:
              inline: { flags: { off-flag: { state: ENABLED, variants: { "on": true, "off": false }, defaultVariant: "off" } } }
            gates:
              guarded: { require: { all-of: [missing, { not: { flag: off-flag } }] } }
            """)
        let short = try tree.capctl(["check", "guarded"])
        #expect(short.status == 1, "\(short.output)")
        #expect(short.output.contains("AuthorizedFor(missing): undecided"), "\(short.output)")
        #expect(
            !short.output.contains("FlagIsOn(off-flag)"), "a part under a passing not read as a cause: \(short.output)")
        let explained = try tree.capctl(["explain", "guarded"])
        let checked = try tree.capctl(["check", "guarded", "--explain"])
        #expect(explained.status == checked.status && explained.output == checked.output, "\(explained.output)")
        #expect(explained.output.contains("FlagIsOn(off-flag): failed"), "the whole tree: \(explained.output)")
    }

    @Test("unknown names and bad usage exit 64")
    func usage() throws {
        let tree = try PolicyTree()
        try tree.write("etc/policy.yaml", Self.policy)
        let unknown = try tree.capctl(["check", "nonesuch"])
        #expect(unknown.status == 64)
        #expect(unknown.error.contains("no gate \"nonesuch\""))
        #expect(try tree.capctl(["check"]).status == 64)
        #expect(try tree.capctl(["run", "open"]).status == 64)
        #expect(try tree.capctl(["authorize", "nonesuch"]).status == 64)
    }

    @Test("a broken policy file exits 78 with file, line and column")
    func brokenPolicy() throws {
        let tree = try PolicyTree()
        let file = try tree.write(
            "etc/policy.yaml",
            """
            capabilities:
              tmp: { kind: file, path: /tmp }
            gates:
              export:
                require: { all-of: [tmp, tpm] }
            """)
        let run = try tree.capctl(["check", "export"])
        #expect(run.status == 78)
        #expect(run.error.contains("\(file):5:"), "\(run.error)")
        #expect(run.error.contains("capability \"tpm\", which no policy file defines"))
        let typo = try tree.write("etc/policy.d/typo.yaml", "capabilities:\n  data: { kind: file, paht: /tmp }\n")
        let validate = try tree.capctl(["validate"])
        #expect(validate.status == 78)
        #expect(validate.output.contains("\(typo):2:23: unknown key \"paht\""), "\(validate.output)")
    }

    @Test("a policy file others can write is refused, as sudo refuses such a sudoers")
    func worldWritable() throws {
        let tree = try PolicyTree()
        let file = try tree.write("etc/policy.yaml", Self.policy, mode: 0o666)
        let run = try tree.capctl(["check", "open"])
        #expect(run.status == 78)
        #expect(run.error.contains("\(file): can be written by anyone (mode 0666; run chmod o-w)"))
        chmod(file, 0o644)
        chmod(tree.admin, 0o777)
        let directory = try tree.capctl(["status"])
        #expect(directory.status == 78)
        #expect(directory.error.contains("\(tree.admin): can be written by anyone (mode 0777; run chmod o-w)"))
    }
}

/// Help, completions and the man page come from the command definitions.
@Suite("capctl help and completions")
struct CapctlHelpTests {
    @Test("completion scripts name every subcommand", arguments: ["bash", "zsh", "fish"])
    func completions(shell: String) throws {
        let tree = try PolicyTree()
        let run = try tree.capctl(["--generate-completion-script", shell])
        #expect(run.status == 0)
        for command in ["status", "check", "authorize", "run", "flags", "validate", "watch"] {
            #expect(run.output.contains(command), "\(shell): \(command)")
        }
    }

    @Test("help documents the exit statuses")
    func help() throws {
        let run = try PolicyTree().capctl(["--help"])
        // As words: the help wraps its lines where the terminal's width says.
        let text = run.output.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(text.contains("70 capctl's own fault"), "\(text)")
        #expect(text.contains("77 run refused"), "\(text)")
        #expect(text.contains("78 policy or flag file error"), "\(text)")
    }
}
