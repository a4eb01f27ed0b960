import Foundation
import Glibc
import TestSupport
import Testing

/// Attacks on the built binary, as root and as uid 65534: files a gate trusts that others
/// could change, hostile YAML, huge numbers, compositions that could turn an error into a
/// pass, and what `capctl run` hands to the command.
@Suite(
    "capctl under attack", .enabled(if: geteuid() == 0, "needs root: it changes owners and runs capctl as uid 65534"),
    .timeLimit(.minutes(2)))
struct CapctlSecurityTests {
    /// A gate that only an attacker's file would open.
    static let shut = """
        capabilities:
          tmp: { kind: file, path: /tmp }
        gates:
          export: { require: { not: tmp } }
        """
    static let open = """
        capabilities:
          tmp: { kind: file, path: /tmp }
        gates:
          export: { require: tmp }
        """

    enum Identity: String, CaseIterable, CustomTestStringConvertible {
        case root
        case nobody
        var testDescription: String { rawValue }
    }

    // MARK: Trusted files

    @Test("a writable ancestor directory is refused (not sticky), as root and as nobody", arguments: Identity.allCases)
    func writableAncestor(identity: Identity) throws {
        let tree = try PolicyTree()
        try tree.write("etc/policy.yaml", Self.open)
        chmod(tree.root, 0o777)
        let run = try tree.capctl(["check", "export"], as: identity)
        #expect(run.status == 78)
        #expect(run.error.contains("a directory on the way, \(tree.root), can be written by anyone"), "\(run.error)")
        // Sticky, and the entry below it owned by root: nobody else can rename it.
        chmod(tree.root, 0o1777)
        #expect(try tree.capctl(["check", "export"], as: identity).status == 0)
    }

    @Test("an entry in a sticky directory owned by another user is refused")
    func stickyEntryOfAnotherUser() throws {
        let tree = try PolicyTree()
        try tree.write("etc/policy.yaml", Self.open)
        chmod(tree.root, 0o1777)
        chown(tree.admin, 65534, 65534)
        let run = try tree.capctl(["check", "export"])
        #expect(run.status == 78)
        #expect(run.error.contains("and the entry in it, \(tree.admin), is owned by uid 65534"), "\(run.error)")
    }

    @Test(
        "a policy file or directory with an ACL that lets another user write is refused", arguments: Identity.allCases)
    func writerACL(identity: Identity) throws {
        let tree = try PolicyTree()
        let file = try tree.write("etc/policy.yaml", Self.open)
        try setfacl("u:1234:rw", file)
        var run = try tree.capctl(["check", "export"], as: identity)
        #expect(run.status == 78)
        #expect(run.error.contains("\(file): has an ACL entry that lets uid 1234 write it"), "\(run.error)")
        try setfacl("g:1234:rw", file, remove: "u:1234")
        run = try tree.capctl(["check", "export"], as: identity)
        #expect(run.error.contains("has an ACL entry that lets group 1234 write it"), "\(run.error)")
        // A mask without write bounds every named entry: nobody else can write, so it is accepted.
        try setfacl("m::r", file)
        #expect(try tree.capctl(["check", "export"], as: identity).status == 0)
        _ = try runProcess("/usr/bin/setfacl", ["-b", file])
        try setfacl("u:1234:rwx", tree.admin)
        run = try tree.capctl(["check", "export"], as: identity)
        #expect(run.status == 78)
        #expect(run.error.contains("has an ACL entry that lets uid 1234 write it"), "\(run.error)")
        _ = try runProcess("/usr/bin/setfacl", ["-b", tree.admin])
        #expect(try tree.capctl(["check", "export"], as: identity).status == 0)
    }

    @Test("a file owned by another user is refused, even when nobody else can write it", arguments: Identity.allCases)
    func foreignOwner(identity: Identity) throws {
        let tree = try PolicyTree()
        let file = try tree.write("etc/policy.d/50-extra.yaml", Self.open)
        chown(file, 1234, 1234)
        let run = try tree.capctl(["check", "export"], as: identity)
        #expect(run.status == 78)
        #expect(run.error.contains("\(file): is owned by uid 1234"), "\(run.error)")
    }

    @Test("a dangling link, a FIFO, a device and a directory are refused, never skipped", arguments: Identity.allCases)
    func oddFiles(identity: Identity) throws {
        let tree = try PolicyTree()
        try tree.write("etc/policy.yaml", Self.open)
        try tree.write("etc/policy.d/.keep", "")
        let dropIns = tree.admin + "/policy.d/"
        symlink(tree.root + "/nowhere.yaml", dropIns + "10-dangling.yaml")
        var run = try tree.capctl(["check", "export"], as: identity)
        #expect(run.status == 78)
        #expect(
            run.error.contains(
                "10-dangling.yaml: a symbolic link on the way points to \(tree.root)/nowhere.yaml, which does not exist"
            ), "\(run.error)")
        unlink(dropIns + "10-dangling.yaml")

        mkfifo(dropIns + "20-fifo.yaml", 0o644)
        run = try tree.capctl(["check", "export"], as: identity)
        #expect(run.status == 78)
        #expect(run.error.contains("20-fifo.yaml: refusing a FIFO: a regular file is expected here"), "\(run.error)")
        unlink(dropIns + "20-fifo.yaml")

        symlink("/dev/zero", dropIns + "30-zero.yaml")
        run = try tree.capctl(["check", "export"], as: identity)
        #expect(run.status == 78)
        #expect(run.error.contains("30-zero.yaml: refusing a character device"), "\(run.error)")
        unlink(dropIns + "30-zero.yaml")

        mkdir(dropIns + "40-directory.yaml", 0o755)
        run = try tree.capctl(["check", "export"], as: identity)
        #expect(run.status == 78)
        #expect(run.error.contains("40-directory.yaml: refusing a directory"), "\(run.error)")
        rmdir(dropIns + "40-directory.yaml")
        #expect(try tree.capctl(["check", "export"], as: identity).status == 0)
    }

    @Test("a root holding only policy.d is checked like any other; a writable policy.d is refused even if sticky")
    func listedDirectories() throws {
        let tree = try PolicyTree()
        try tree.write("run/policy.d/10.yaml", Self.open)
        chmod(tree.runtime, 0o777)
        var run = try tree.capctl(["check", "export"])
        #expect(run.status == 78)
        #expect(run.error.contains("\(tree.runtime): can be written by anyone"), "\(run.error)")
        chmod(tree.runtime, 0o755)
        chmod(tree.runtime + "/policy.d", 0o1777)
        run = try tree.capctl(["check", "export"])
        #expect(run.status == 78)
        #expect(run.error.contains("\(tree.runtime)/policy.d: can be written by anyone"), "\(run.error)")
        chmod(tree.runtime + "/policy.d", 0o755)
        #expect(try tree.capctl(["check", "export"]).status == 0)
    }

    @Test("links are followed and every directory on the way of the target is checked too")
    func linkTargets() throws {
        let tree = try PolicyTree()
        let good = try tree.write("store/good.yaml", Self.open)
        let attacker = tree.root + "/attacker"
        mkdir(attacker, 0o777)
        chmod(attacker, 0o777)
        symlink(good, attacker + "/hop")
        try FileManager.default.createDirectory(atPath: tree.admin, withIntermediateDirectories: true)
        symlink(attacker + "/hop", tree.admin + "/policy.yaml")
        let run = try tree.capctl(["check", "export"])
        #expect(run.status == 78)
        #expect(
            run.error.contains("the directory holding \(attacker)/hop, \(attacker), can be written by anyone"),
            "\(run.error)")
        // The same chain through trusted directories is fine.
        chmod(attacker, 0o755)
        #expect(try tree.capctl(["check", "export"]).status == 0)
    }

    @Test("a file over 4 MiB is refused before it is read")
    func sizeCap() throws {
        let tree = try PolicyTree()
        try tree.write("etc/policy.yaml", Self.open + "\n#" + String(repeating: "x", count: 4 * 1024 * 1024) + "\n")
        let run = try tree.capctl(["check", "export"])
        #expect(run.status == 78)
        #expect(run.error.contains("the limit is 4194304 bytes"), "\(run.error)")
    }

    @Test("validate PATH checks the file before reading it, and never echoes an untrusted file")
    func validateChecksFirst() throws {
        let tree = try PolicyTree()
        let file = try tree.write("loose/policy.yaml", "gates: [ SECRET-CONTENT", mode: 0o666)
        let run = try tree.capctl(["validate", file], as: .nobody)
        #expect(run.status == 78)
        #expect(run.output.contains("\(file): can be written by anyone"), "\(run.output)")
        #expect(!run.output.contains("SECRET") && !run.error.contains("SECRET"))
    }

    @Test("errors name a position and a reason, never text of a file that did not parse or is not a policy")
    func errorsQuoteNoContent() throws {
        let tree = try PolicyTree()
        let secret = "capctl-secret-\(UUID().uuidString)"
        // Another process's environment: NUL-separated, and a secret in it.
        let holder = try DaemonProcess(["/bin/sleep", "60"], environment: ["TOKEN": secret, "OTHER": "a: b: c"])
        defer { holder.stop() }
        var runs = [try tree.capctl(["validate", "/proc/\(holder.pid)/environ"])]
        // Broken YAML and JSON with the secret where the parser stops; a file that parses but is no policy.
        runs.append(try tree.capctl(["validate", try tree.write("etc/broken.yaml", "gates:\n  a: [\(secret)\n")]))
        runs.append(
            try tree.capctl(["validate", try tree.write("etc/broken.json", "{\"gates\": {\"a\": \(secret)}}")]))
        runs.append(
            try tree.capctl([
                "validate", try tree.write("etc/shadow-like.yaml", "root:$6$\(secret):19000:0:99999:7:::\n"),
            ]))
        runs.append(
            try tree.capctl(["validate", try tree.write("etc/keys.yaml", "gates: {}\n\(secret)$: 1\n")]))
        for run in runs {
            #expect(run.status == 78, "\(run.output)")
            #expect(!run.output.contains(secret) && !run.error.contains(secret), "\(run.output)\(run.error)")
            #expect(run.output.range(of: #":[0-9]+:[0-9]+: "#, options: .regularExpression) != nil, "\(run.output)")
        }
        // Through a link to /etc/shadow itself: its first line is never printed.
        if let shadow = try? String(contentsOfFile: "/etc/shadow", encoding: .utf8),
            let first = shadow.split(separator: "\n").first, first.count > 8
        {
            let link = tree.root + "/etc/link.yaml"
            #expect(symlink("/etc/shadow", link) == 0)
            let run = try tree.capctl(["validate", link])
            #expect(run.status == 78)
            #expect(
                !run.output.contains(String(first)) && !run.output.contains(String(first.prefix(12))), "\(run.output)")
        }
        // A key a person typed is still quoted, with a suggestion.
        let typo = try tree.capctl(["validate", try tree.write("etc/typo.yaml", "gate: {}\n")])
        #expect(
            typo.output.contains("unknown key \"gate\" in a policy file (did you mean \"gates\"?"), "\(typo.output)")
    }

    @Test(
        "control characters in names, paths, keys and reasons are printed escaped: no terminal escape, no forged line",
        arguments: Identity.allCases)
    func terminalInjection(identity: Identity) throws {
        let tree = try PolicyTree()
        let escape = "\u{1B}]0;pwned\u{7}\u{1B}[2J"
        func clean(_ run: CapctlRun) {
            for text in [run.output, run.error] {
                #expect(!text.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" }, "\(text.debugDescription)")
                #expect(!text.split(separator: "\n").contains { $0.hasPrefix("ok: ") }, "\(text)")
            }
        }
        // A file name that would forge validate's success line.
        let forged = try tree.write("etc/evil\(escape)\nok: 1 file(s) checked.yaml", "gates: [ broken\n")
        let validated = try tree.capctl(["validate", forged], as: identity)
        #expect(validated.status == 78)
        #expect(
            validated.output.contains("\\x1b]0;pwned\\x07\\x1b[2J\\nok: 1 file(s) checked.yaml"), "\(validated.output)")
        clean(validated)
        // Names with control characters are refused, and the errors naming them are escaped.
        try tree.write(
            "etc/policy.yaml",
            "capabilities:\n  tmp: { kind: file, path: /tmp }\ngates:\n  \"gate\\e]0;x\\a\": { require: tmp }\n")
        let refused = try tree.capctl(["status"], as: identity)
        #expect(refused.status == 78)
        #expect(refused.error.contains("\"gate\\x1b]0;x\\x07\" is not a valid name"), "\(refused.error)")
        clean(refused)
        // Paths in a policy, shown in reasons by status, check and run.
        let directory = tree.root + "/data\(escape)"
        #expect(mkdir(directory, 0o755) == 0)
        try tree.write(
            "etc/policy.yaml",
            """
            capabilities:
              data: { kind: file, path: "\(tree.root)/data\\e]0;pwned\\a\\e[2J/missing" }
            gates:
              g: { require: data }
            """)
        let status = try tree.capctl(["status"], as: identity)
        #expect(status.output.contains("data\\x1b]0;pwned\\x07\\x1b[2J/missing"), "\(status.output)")
        clean(status)
        let check = try tree.capctl(["check", "g"], as: identity)
        #expect(check.status == 1, "\(check.output)\(check.error)")
        clean(check)
        clean(try tree.capctl(["check", "nonesuch\u{1B}[H"], as: identity))
        clean(try tree.capctl(["run", "g", "--", "/bin/true\u{1B}[2J"], as: identity))
        // The working directory's name, in the host report.
        let cwd = try TemporaryDirectory(prefix: "cwd\(escape)")
        chmod(cwd.path, 0o755)
        let host = try runProcess(
            "/bin/sh", ["-c", "cd \"$1\" && exec \"$2\" status", "sh", cwd.path, PolicyTree.sharedCapctl],
            // An empty root: no policy, so the host report (a root that does not exist is an error).
            environment: ["PATH": "/usr/bin:/bin", "CAPCTL_POLICY_ROOTS": tree.root + "/home"])
        #expect(host.standardOutput.contains("cwd\\x1b]0;pwned"), "\(host.standardOutput)")
        clean(CapctlRun(status: host.status, output: host.standardOutput, error: host.standardError))
    }

    @Test("a link swapped back and forth by an attacker never opens the gate", .timeLimit(.minutes(2)))
    func symlinkSwapRace() throws {
        let tree = try PolicyTree()
        let good = try tree.write("store/good.yaml", Self.shut)
        let evil = try tree.write("store/evil.yaml", Self.open)
        let swapDirectory = tree.root + "/swap"
        mkdir(swapDirectory, 0o755)
        chown(swapDirectory, 65534, 65534)
        symlink(good, swapDirectory + "/policy.yaml")
        chown(tree.root + "/etc", 0, 0)
        symlink(swapDirectory + "/policy.yaml", tree.admin + "/policy.yaml")
        // The attacker (uid 65534) owns the directory holding the link and swaps it as fast as it can.
        let swapper = try StreamingProcess(
            nobody + [
                "/bin/sh", "-c",
                "cd \(swapDirectory) && i=0; while [ $i -lt 200000 ]; do ln -sfn \(evil) policy.yaml; ln -sfn \(good) policy.yaml; i=$((i+1)); done",
            ])
        var outcomes: [Int32: Int] = [:]
        for _ in 0..<300 {
            let run = try tree.capctl(["check", "export"])
            outcomes[run.status, default: 0] += 1
            #expect(run.status != 0, "the gate opened: \(run.output) \(run.error)")
        }
        _ = swapper
        #expect(outcomes.keys.allSatisfy { $0 == 78 }, "\(outcomes)")
    }

    // MARK: Bounded input

    @Test("a billion-laughs YAML file is refused at its first anchor, within bounded memory")
    func billionLaughs() throws {
        let tree = try PolicyTree()
        var text =
            "capabilities: {}\nlol0: &a0 [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n"
        for level in 1..<20 {
            text +=
                "lol\(level): &a\(level) [" + Array(repeating: "*a\(level - 1)", count: 9).joined(separator: ",")
                + "]\n"
        }
        try tree.write("etc/policy.yaml", text)
        let run = try tree.capctl(["validate"], memoryLimit: 2 << 30)
        #expect(run.status == 78)
        #expect(run.output.contains("\(tree.admin)/policy.yaml:2:7: YAML anchors are not allowed"), "\(run.output)")
    }

    @Test(
        "aliases and tags are refused with their position",
        arguments: [
            ("a: &x 1\nb: *x\n", "1:4: YAML anchors are not allowed"),
            ("gates:\n  g: { require: *x }\n", "2:17: YAML aliases are not allowed"),
            (
                "capabilities:\n  x: !!python/object:os.system { kind: file, path: /tmp }\n",
                "2:6: YAML tags are not allowed"
            ),
            ("capabilities: !custom {}\n", "1:15: YAML tags are not allowed"),
        ])
    func yamlExtensions(text: String, expected: String) throws {
        let tree = try PolicyTree()
        try tree.write("etc/policy.yaml", text)
        let run = try tree.capctl(["validate"])
        #expect(run.status == 78)
        #expect(run.output.contains("policy.yaml:" + expected), "\(run.output)")
    }

    @Test("10,000 chained gates and a 25-level doubling gate DAG are refused at once, with a position")
    func gateExpansion() throws {
        let tree = try PolicyTree()
        var chain = "capabilities:\n  tmp: { kind: file, path: /tmp }\ngates:\n"
        for index in 0..<10_000 { chain += "  g\(index): { require: { gate: g\(index + 1) } }\n" }
        chain += "  g10000: { require: tmp }\n"
        try tree.write("etc/policy.yaml", chain)
        var run = try tree.capctl(["check", "g0"], memoryLimit: 2 << 30)
        #expect(run.status == 78)
        #expect(run.error.contains("nests more than 64 levels deep through the gates it uses"), "\(run.error)")

        var dag = "capabilities:\n  tmp: { kind: file, path: /tmp }\ngates:\n"
        for index in 0..<25 {
            dag += "  d\(index): { require: { all-of: [{ gate: d\(index + 1) }, { gate: d\(index + 1) }] } }\n"
        }
        dag += "  d25: { require: tmp }\n"
        try tree.write("etc/policy.yaml", dag)
        run = try tree.capctl(["check", "d0"], memoryLimit: 2 << 30)
        #expect(run.status == 78)
        #expect(run.error.contains("expands to more than 10000 conditions"), "\(run.error)")

        // A long cycle is found in linear time and named by its ends.
        var cycle = "gates:\n"
        for index in 0..<10_000 { cycle += "  c\(index): { require: { gate: c\((index + 1) % 10_000) } }\n" }
        try tree.write("etc/policy.yaml", cycle)
        run = try tree.capctl(["validate"], memoryLimit: 2 << 30)
        #expect(run.status == 78)
        #expect(run.output.contains("gates depend on each other in a cycle: c0 -> c1"), "\(run.output)")
        #expect(run.output.contains("(9989 more)"), "\(run.output)")
    }

    @Test("a 25-level doubling $ref DAG and a 10,000-deep $ref chain in a flag file are refused")
    func referenceExpansion() throws {
        let tree = try PolicyTree()
        var evaluators = (0..<25).map {
            "\"e\($0)\": { \"or\": [{ \"$ref\": \"e\($0 + 1)\" }, { \"$ref\": \"e\($0 + 1)\" }] }"
        }
        evaluators.append("\"e25\": { \"==\": [{ \"var\": \"x\" }, 1] }")
        let flag =
            "\"flags\": { \"f\": { \"state\": \"ENABLED\", \"variants\": { \"on\": true, \"off\": false }, \"defaultVariant\": \"off\", \"targeting\": { \"if\": [{ \"$ref\": \"e0\" }, \"on\", \"off\"] } } }"
        let dag = try tree.write(
            "flags/dag.flags.json", "{ \"$evaluators\": { " + evaluators.joined(separator: ", ") + " }, " + flag + " }")
        var run = try tree.capctl(["validate", dag], memoryLimit: 2 << 30)
        #expect(run.status == 78)
        #expect(run.output.contains("expands to more than 10000 operations and values"), "\(run.output)")

        var chain = (0..<10_000).map { "\"e\($0)\": { \"!\": { \"$ref\": \"e\($0 + 1)\" } }" }
        chain.append("\"e10000\": true")
        let deep = try tree.write(
            "flags/chain.flags.json", "{ \"$evaluators\": { " + chain.joined(separator: ", ") + " }, " + flag + " }")
        run = try tree.capctl(["validate", deep], memoryLimit: 2 << 30)
        #expect(run.status == 78)
        #expect(run.output.contains("nests more than 128 levels deep (counting $ref)"), "\(run.output)")
    }

    @Test(
        "huge numbers are clear errors, never a trap",
        arguments: [
            ("timeout: 1e300", "\"timeout\" must be at most 366 days"),
            ("timeout: 9223372036854775807h", "\"timeout\" must be at most 366 days"),
            ("timeout: -5s", "\"timeout\" must be a duration"),
            ("timeout: 1.5ms", "\"timeout\" must be a duration"),
            ("port: 1e300", "\"port\" must be a whole number"),
        ])
    func hugeNumbers(setting: String, expected: String) throws {
        let tree = try PolicyTree()
        let port = setting.hasPrefix("port") ? setting : "port: 22"
        let timeout = setting.hasPrefix("timeout") ? ", " + setting : ""
        try tree.write("etc/policy.yaml", "capabilities:\n  ssh: { kind: host, host: 127.0.0.1, \(port)\(timeout) }\n")
        let run = try tree.capctl(["validate"])
        #expect(run.status == 78)
        #expect(run.output.contains(expected), "\(run.output)")
    }

    @Test("numbers from flags and contexts never trap: 1e20 prints in full, substr takes 1e300")
    func hugeNumbersInFlags() throws {
        let tree = try PolicyTree()
        let file = try tree.write(
            "flags/n.flags.json",
            """
            { "flags": {
              "big": { "state": "ENABLED", "variants": { "a": 1e20, "b": -1e20 }, "defaultVariant": "a" },
              "cut": { "state": "ENABLED", "variants": { "a": "a", "b": "b" }, "defaultVariant": "b",
                       "targeting": { "if": [{ "==": [{ "substr": [{ "var": "email" }, 1e300] }, ""] }, "a", "b"] } },
              "neg": { "state": "ENABLED", "variants": { "a": "a", "b": "b" }, "defaultVariant": "b",
                       "targeting": { "if": [{ "==": [{ "substr": [{ "var": "email" }, -1e300, 1e300] }, "x@y"] }, "a", "b"] } }
            } }
            """)
        let big = try tree.capctl(["flags", "get", "big", "--file", file])
        #expect(big.status == 0)
        #expect(big.output.contains("100000000000000000000"), "\(big.output)")
        let cut = try tree.capctl(["flags", "get", "cut", "--file", file, "--context", "email=x@y"])
        #expect(cut.output.hasPrefix("cut = \"a\""), "\(cut.output)")
        let negative = try tree.capctl(["flags", "get", "neg", "--file", file, "--context", "email=x@y"])
        #expect(negative.output.hasPrefix("neg = \"a\""), "\(negative.output)")
        let context = try tree.capctl(["flags", "get", "cut", "--file", file, "--context", "email=1e400"])
        #expect(context.status == 0, "\(context.error)")
    }

    // MARK: Fail-closed composition

    @Test("not, any-of and silent over an undecided leaf never open a gate", arguments: Identity.allCases)
    func undecidedNeverOpens(identity: Identity) throws {
        let tree = try PolicyTree()
        try tree.write(
            "flags/f.flags.json",
            """
            { "flags": {
              "broken": { "state": "ENABLED", "variants": { "on": true, "off": false }, "defaultVariant": "off",
                          "targeting": { "cat": ["no such ", "variant"] } },
              "text": { "state": "ENABLED", "variants": { "a": "a" }, "defaultVariant": "a" }
            } }
            """)
        try tree.write("pam/.keep", "")
        try tree.write(
            "etc/policy.yaml",
            """
            capabilities:
              missing-file: { kind: file, path: /nonexistent/lock }
              missing-pam: { kind: pam, service: nonesuch, service-directory: \(tree.root)/pam }
              shut: { kind: file, path: /tmp, access: [read], type: file }
            flags:
              files: [\(tree.root)/flags/f.flags.json]
            gates:
              not-flag-error: { require: { not: { flag: broken } } }
              not-missing-pam: { require: { not: missing-pam } }
              not-silent-missing: { require: { not: { silent: missing-file } } }
              any-of-errors: { require: { any-of: [{ not: missing-file }, { not: { flag: broken } }, shut] } }
            """)
        for gate in ["not-flag-error", "not-missing-pam", "not-silent-missing", "any-of-errors"] {
            for arguments in [
                ["check", gate], ["check", gate, "--non-interactive"], ["run", gate, "--", "/bin/true"],
            ] {
                let run = try tree.capctl(arguments, as: identity)
                #expect(run.status == (arguments[0] == "run" ? 77 : 1), "\(arguments): \(run.output) \(run.error)")
            }
            let explained = try tree.capctl(["check", gate, "--explain"], as: identity)
            #expect(explained.output.hasPrefix("\(gate): undecided"), "\(explained.output)")
            #expect(explained.output.contains(": undecided: "), "\(explained.output)")
        }
        let status = try tree.capctl(["status", "--json"], as: identity)
        let gates = try #require((try status.json() as? [String: Any])?["gates"] as? [[String: Any]])
        #expect(gates.allSatisfy { $0["status"] as? String == "undecided" }, "\(gates)")
        // A gate on a flag with no Boolean variant can never hold, so its `not` would always open:
        // refused when the policy loads (where the flag's type cannot be known then, a flag
        // service's, the comparison is undecided when evaluated: PolicyFileTests).
        try tree.write(
            "etc/policy.d/50-mismatch.yaml", "gates:\n  not-type-mismatch: { require: { not: { flag: text } } }\n")
        let mismatch = try tree.capctl(["check", "not-type-mismatch"], as: identity)
        #expect(mismatch.status == 78, "\(mismatch.output) \(mismatch.error)")
        #expect(mismatch.error.contains("compares flag \"text\" with a boolean (true), but its variants are string"))
    }

    @Test("check --explain prints the same tree with and without prompting")
    func oneExplanation() throws {
        let tree = try PolicyTree()
        try tree.write(
            "etc/policy.yaml",
            """
            capabilities:
              tmp: { kind: file, path: /tmp }
              shut: { kind: file, path: /tmp, type: file }
            gates:
              inner: { require: { all-of: [tmp, shut] } }
              outer: { require: { all-of: [{ gate: inner }, tmp] } }
            """)
        let asked = try tree.capctl(["check", "outer", "--explain"])
        let notAsked = try tree.capctl(["check", "outer", "--explain", "--non-interactive"])
        #expect(asked.status == 1)
        #expect(asked.output == notAsked.output)
        #expect(asked.output.contains("    gate inner: failed: 1 of 2 failed"), "\(asked.output)")
        #expect(!asked.output.contains("AllOf(AllOf"))
    }

    @Test("a PAM service name Linux-PAM would rewrite is a policy error with its position")
    func pamServiceNames() throws {
        let tree = try PolicyTree()
        try tree.write(
            "etc/policy.yaml",
            """
            capabilities:
              admin: { kind: pam, service: LockedDown }
              up: { kind: pam, service: ".." }
            """)
        let run = try tree.capctl(["validate"])
        #expect(run.status == 78)
        #expect(run.output.contains("policy.yaml:2:10:"), "\(run.output)")
        #expect(run.output.contains("\"LockedDown\" is not a usable PAM service name"), "\(run.output)")
        #expect(run.output.contains("\"..\" is not a usable PAM service name"), "\(run.output)")
    }

    @Test(
        "capability names compare ASCII-only: cap_\u{17F}ys_admin (long s) is not CAP_SYS_ADMIN",
        arguments: Identity.allCases)
    func capabilityNamesASCIIOnly(identity: Identity) throws {
        let tree = try PolicyTree()
        try tree.write(
            "etc/policy.yaml",
            """
            capabilities:
              admin: { kind: process-capability, capability: cap_\u{17F}ys_admin }
            gates:
              not-admin: { require: { not: admin } }
            """)
        let validated = try tree.capctl(["validate"], as: identity)
        #expect(validated.status == 78, "\(validated.output)")
        #expect(validated.output.contains("policy.yaml:2:"), "\(validated.output)")
        let check = try tree.capctl(["check", "not-admin"], as: identity)
        #expect(check.status == 78, "\(check.output)\(check.error)")
        try tree.write(
            "etc/policy.yaml", "capabilities:\n  tmp: { kind: file, path: /tmp }\ngates:\n  open: { require: tmp }\n")
        let run = try tree.capctl(
            ["run", "--capabilities", "cap_\u{17F}ys_admin", "open", "--", "/bin/true"], as: identity)
        #expect(run.status == 64, "\(run.output)\(run.error)")
        #expect(run.error.contains("is not a Linux capability"), "\(run.error)")
    }

    // MARK: capctl run

    @Test(
        "run replaces capctl with the command: no blocked or ignored signal, no inherited descriptor",
        arguments: Identity.allCases)
    func cleanProcess(identity: Identity) throws {
        let tree = try PolicyTree()
        try tree.write("etc/policy.yaml", Self.open)
        // The caller leaks descriptor 7 and ignores SIGTERM; capctl must hand over neither.
        let script = """
            exec 7</etc/hostname; trap '' TERM; exec "$@"
            """
        // The command reads its own status and descriptors (a shell would show its own
        // transient masks): exactly what capctl handed over.
        let status = try tree.capctl(
            ["run", "export", "--", "/bin/grep", "-E", "^Sig(Blk|Ign)", "/proc/self/status"],
            as: identity, wrapper: ["/bin/sh", "-c", script, "sh"])
        #expect(status.status == 0, "\(status.error)")
        #expect(status.output == "SigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\n", "\(status.output)")
        let listing = try tree.capctl(
            ["run", "export", "--", "/bin/ls", "-l", "/proc/self/fd"], as: identity,
            wrapper: ["/bin/sh", "-c", script, "sh"])
        let descriptors = listing.output.split(separator: "\n").dropFirst().map { line in
            line.split(separator: " ").dropFirst(8).joined(separator: " ")
        }
        // 0, 1 and 2, and the descriptor ls opened to list the directory.
        #expect(descriptors.count == 4, "\(listing.output)")
        #expect(descriptors.filter { $0.hasPrefix("3 -> /proc/") }.count == 1, "\(listing.output)")
        #expect(!listing.output.contains("hostname") && !listing.output.contains("socket:"), "\(listing.output)")
    }

    @Test("run: 126 for what cannot be executed, 127 for what is not there, 77 when the gate is shut")
    func runStatuses() throws {
        let tree = try PolicyTree()
        try tree.write("etc/policy.yaml", Self.open)
        let data = try tree.write("data.txt", "not a program")
        #expect(try tree.capctl(["run", "export", "--", "/tmp"]).status == 126)
        #expect(try tree.capctl(["run", "export", "--", data]).status == 126)
        #expect(try tree.capctl(["run", "export", "--", "/nonexistent/tool"]).status == 127)
        let notFound = try tree.capctl(["run", "export", "--", "no-such-command-anywhere"])
        #expect(notFound.status == 127)
        #expect(notFound.error.contains("capctl: cannot run no-such-command-anywhere: No such file or directory"))
        try tree.write("etc/policy.yaml", Self.shut)
        #expect(try tree.capctl(["run", "export", "--", "/bin/true"]).status == 77)
    }
}

extension CapctlSecurityTests {
    var nobody: [String] { ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] }

    func setfacl(_ entry: String, _ path: String, remove: String? = nil) throws {
        if let remove { _ = try runProcess("/usr/bin/setfacl", ["-x", remove, path]) }
        let result = try runProcess("/usr/bin/setfacl", ["-m", entry, path])
        try #require(result.status == 0, "setfacl: \(result.standardError)")
    }
}
