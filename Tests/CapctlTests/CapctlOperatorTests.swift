import Foundation
import TestSupport
import Testing

/// What administrators and operators meet: where every definition came from, a final system
/// policy, checking a drop-in with the installed layers, errors for programs, and systemd.
@Suite(
    "capctl for operators: origins, final roots, validate --installed, JSON errors, systemd", .timeLimit(.minutes(2)))
struct CapctlOperatorTests {
    /// A vendor file, an admin drop-in replacing its capability and gate, and a per-user file
    /// replacing the gate again and adding one of its own.
    private func layeredTree(final: Bool) throws -> PolicyTree {
        let tree = try PolicyTree()
        try tree.write(
            "usr-share/policy.yaml",
            """
            capabilities:
              scratch: { kind: file, path: /tmp, description: The scratch directory }
              nobody-user: { kind: user, user: nobody }
            gates:
              open: { require: scratch, description: Open the spool }
            flags:
              inline:
                flags:
                  beta: { state: ENABLED, variants: { on: true, off: false }, defaultVariant: on }
            """)
        try tree.write(
            "etc/policy.d/50-local.yaml",
            (final ? "final: true\n" : "")
                + """
                capabilities:
                  scratch: { kind: file, path: /var/tmp }
                gates:
                  open: { require: { all-of: [scratch, nobody-user] } }
                """)
        try tree.write(
            "config/capctl/policy.yaml",
            """
            gates:
              open: { require: scratch }
              mine: { require: { flag: beta } }
            flags:
              inline:
                flags:
                  beta: { state: ENABLED, variants: { on: true, off: false }, defaultVariant: off }
            """)
        return tree
    }

    @Test(
        "status --origin: the file:line of each definition and every one it replaced; without final, the user's layer wins"
    )
    func origins() throws {
        let tree = try layeredTree(final: false)
        let run = try tree.capctl(["status", "--origin", "--json"])
        #expect(run.status == 0, "\(run.error)")
        let capabilities = try run.entries("capabilities")
        let scratch = try #require(capabilities["scratch"]?["origin"] as? [String: Any])
        #expect(scratch["location"] as? String == "\(tree.admin)/policy.d/50-local.yaml:2:3")
        #expect(scratch["replaced"] as? [String] == ["\(tree.vendor)/policy.yaml:2:3"])
        let gates = try run.entries("gates")
        let open = try #require(gates["open"]?["origin"] as? [String: Any])
        #expect(open["location"] as? String == "\(tree.root)/config/capctl/policy.yaml:2:3")
        #expect(
            open["replaced"] as? [String] == [
                "\(tree.vendor)/policy.yaml:5:3", "\(tree.admin)/policy.d/50-local.yaml:4:3",
            ])
        // The user's later flag source wins the flag, and says which definition it replaced.
        let beta = try #require(try run.entries("flags")["beta"])
        #expect(beta["value"] as? Bool == false)
        let betaOrigin = try #require(beta["origin"] as? [String: Any])
        #expect((betaOrigin["location"] as? String)?.hasPrefix("\(tree.root)/config/capctl/policy.yaml:") == true)
        #expect((betaOrigin["replaced"] as? [String])?.first?.hasPrefix("\(tree.vendor)/policy.yaml:") == true)
        let definitions = try run.entries("definitions")
        #expect(definitions["inline flags"]?["kind"] as? String == "flag-source")
        // The same in the table, for people.
        let table = try tree.capctl(["status", "--origin"])
        #expect(table.output.contains("ORIGIN"))
        #expect(
            table.output.contains(
                "\(tree.admin)/policy.d/50-local.yaml:2:3 (replaces \(tree.vendor)/policy.yaml:2:3)"), "\(table.output)"
        )
        // Without --origin, none of it.
        #expect(try !tree.capctl(["status"]).output.contains("ORIGIN"))
    }

    @Test("final: true in the system policy: the per-user layer adds but replaces nothing, and --origin says so")
    func finalSystemPolicy() throws {
        let tree = try layeredTree(final: true)
        // The admin's gate (needs the nobody user) stays in force for root: denied, not the user's open gate.
        let check = try tree.capctl(["check", "open", "--non-interactive"])
        #expect(check.status == 1, "\(check.output)\(check.error)")
        #expect(check.output.contains("nobody-user"))
        // The user's own new gate works; the flag keeps the system's value (the user's source ranks below).
        #expect(try tree.capctl(["check", "mine", "--non-interactive"]).status == 0)
        let run = try tree.capctl(["status", "--origin", "--json"])
        let open = try #require(try run.entries("gates")["open"]?["origin"] as? [String: Any])
        #expect(open["location"] as? String == "\(tree.admin)/policy.d/50-local.yaml:5:3")
        #expect(open["keptOver"] as? [String] == ["\(tree.root)/config/capctl/policy.yaml:2:3"])
        #expect(try run.entries("flags")["beta"]?["value"] as? Bool == true)
        #expect(try run.entries("definitions")["final"]?["status"] as? String == "true")
        // The user's file checked with the installed layers: every system gate compared exactly.
        let proof = try tree.capctl(["validate", "--installed", tree.root + "/config/capctl/policy.yaml"])
        #expect(proof.status == 0, "\(proof.output)\(proof.error)")
        #expect(
            proof.output.contains(
                "note: final: the per-user layer (1 file(s)) changes none of the system's 1 gate(s): each decides exactly"
            ),
            "\(proof.output)")
        let validate = try tree.capctl(["validate"])
        #expect(validate.status == 0, "\(validate.output)")
        #expect(
            validate.output.contains(
                "\(tree.root)/config/capctl/policy.yaml:2:3: gate \"open\" does not replace the system's at \(tree.admin)/policy.d/50-local.yaml:5:3: the system policy is final"
            ), "\(validate.output)")
        // Nor can the user's layer change what the audit trail records, though the system keeps the default.
        try tree.write("config/capctl/policy.yaml", "audit: off\ngates:\n  mine: { require: scratch }\n")
        let quiet = try tree.capctl(["status", "--origin", "--json"])
        #expect(try quiet.entries("definitions")["audit"] == nil, "\(quiet.output)")
        #expect(
            try tree.capctl(["validate"]).output.contains(
                "\(tree.root)/config/capctl/policy.yaml:1:8: setting \"audit\" does not replace the system's at \(tree.admin)/policy.d/50-local.yaml:1:8"
            ))
        // Only the system can make itself final.
        try tree.write("config/capctl/policy.yaml", "final: true\ngates:\n  mine: { require: scratch }\n")
        let refused = try tree.capctl(["check", "mine", "--non-interactive"])
        #expect(refused.status == 78)
        #expect(refused.error.contains("\"final\" belongs in the system policy"), "\(refused.error)")
        try tree.write("config/capctl/policy.yaml", "final: yes please\n")
        #expect(try tree.capctl(["validate"]).output.contains("\"final\" must be true or false, found a string"))
    }

    /// A final system gate on a flag its service does not (yet) serve is undecided; an inline flag
    /// of the same key in the user's layer used to fill it in and open the gate. What a final
    /// system policy names resolves in the system layers only.
    @Test("final: the per-user layer cannot fill in a system gate's flag or name; its own gates may use them")
    func finalSystemResolvesAlone() throws {
        let tree = try PolicyTree()
        try tree.write(
            "etc/policy.yaml",
            """
            final: true
            flags:
              http:
                - url: http://127.0.0.1:9/flags.json
                  timeout: 1s
            gates:
              deploy: { require: { flag: deploy-allowed } }
            """)
        try tree.write(
            "config/capctl/policy.yaml",
            """
            flags:
              inline:
                flags:
                  deploy-allowed: { state: ENABLED, variants: { "yes": true, "no": false }, defaultVariant: "yes" }
            gates:
              mine: { require: { flag: deploy-allowed } }
            """)
        let system = try tree.capctl(["check", "deploy", "--non-interactive"])
        #expect(system.status == 1, "the user's flag opened the final system gate: \(system.output)\(system.error)")
        #expect(system.output.contains("undecided"), "\(system.output)")
        let own = try tree.capctl(["check", "mine", "--non-interactive"])
        #expect(own.status == 0, "\(own.output)\(own.error)")
        // Names too: a final system gate cannot use a capability only the user's layer defines.
        try tree.write("etc/policy.yaml", "final: true\ngates:\n  deploy: { require: helper }\n")
        try tree.write("config/capctl/policy.yaml", "capabilities:\n  helper: { kind: file, path: /tmp }\n")
        let named = try tree.capctl(["validate"])
        #expect(named.status != 0, "\(named.output)")
        #expect(
            named.output.contains(
                "gate \"deploy\" of the final system policy uses capability \"helper\", which only the per-user layer defines"
            ),
            "\(named.output)")
    }

    @Test("validate --installed checks a drop-in with the installed layers; alone, it points there")
    func validateInstalled() throws {
        let tree = try PolicyTree()
        try tree.write("etc/policy.yaml", "capabilities:\n  scratch: { kind: file, path: /tmp }\n")
        let dropIn = try tree.write("etc/policy.d/50-local.yaml", "gates:\n  open: { require: scratch }\n")
        let alone = try tree.capctl(["validate", dropIn])
        #expect(alone.status == 78)
        #expect(alone.output.contains("uses capability \"scratch\", which no policy file defines"))
        #expect(alone.output.contains("capctl validate --installed PATH"))
        let installed = try tree.capctl(["validate", "--installed", dropIn])
        #expect(installed.status == 0, "\(installed.output)")
        #expect(installed.output.contains("ok: 2 file(s) checked"), "\(installed.output)")
        // A candidate elsewhere is checked last, replacing what it redefines, errors and all.
        let candidate = try tree.write(
            "candidate.yaml", "gates:\n  open: { require: { all-of: [scratch, missing] } }\n")
        let broken = try tree.capctl(["validate", "--installed", candidate])
        #expect(broken.status == 78)
        #expect(
            broken.output.contains("\(candidate):2:40: gate \"open\" uses capability \"missing\""), "\(broken.output)")
        #expect(try tree.capctl(["validate", "--installed"]).status == 64)
    }

    @Test(
        "validate --installed with a relative flag path: read from the drop-in's place; a staged copy is told why not")
    func validateInstalledRelativeFlagPath() throws {
        let tree = try PolicyTree()
        try tree.write("etc/policy.yaml", "capabilities:\n  scratch: { kind: file, path: /tmp }\n")
        try tree.write(
            "etc/flags/local.json",
            #"{"flags": {"beta": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "on"}}}"#
        )
        let text = "flags:\n  files: [../flags/local.json]\ncapabilities:\n  beta-on: { kind: flag, flag: beta }\n"
        let dropIn = try tree.write("etc/policy.d/50-flags.yaml", text)
        let inPlace = try tree.capctl(["validate", "--installed", dropIn])
        #expect(inPlace.status == 0, "\(inPlace.output)")
        #expect(inPlace.output.contains("ok: 3 file(s) checked"), "\(inPlace.output)")
        // By a relative name, from the drop-in's directory, as an administrator would type it.
        let relative = try tree.run(
            [
                "/bin/sh", "-c", "cd \"$0\" && \"$1\" validate --installed 50-flags.yaml", tree.admin + "/policy.d",
                PolicyTree.capctl,
            ],
            extraEnvironment: [:])
        #expect(relative.status == 0, "\(relative.output)")
        let staged = try tree.write("staging/50-flags.yaml", text)
        let elsewhere = try tree.capctl(["validate", "--installed", staged])
        #expect(elsewhere.status == 78)
        #expect(
            elsewhere.output.contains(
                "note: \(staged): relative paths in it are read from \(tree.root)/staging, where it is now"),
            "\(elsewhere.output)")
    }

    @Test("validate finds every error in one run: unknown keys do not hide broken references")
    func everyErrorAtOnce() throws {
        let tree = try PolicyTree()
        let file = try tree.write(
            "etc/policy.yaml",
            """
            capabilitys:
              x: { kind: file, path: /tmp }
            capabilities:
              ok: { kind: file, path: /tmp }
            gates:
              a: { require: nothere, descripton: x }
              b: { require: { all-off: [ok] } }
            """)
        let run = try tree.capctl(["validate"])
        #expect(run.status == 78)
        for expected in [
            "\(file):1:1: unknown key \"capabilitys\" in a policy file (did you mean \"capabilities\"?",
            "\(file):6:26: unknown key \"descripton\" in gate \"a\" (did you mean \"description\"?",
            "\(file):6:17: gate \"a\" uses capability \"nothere\", which no policy file defines",
            "\(file):7:19: unknown requirement \"all-off\" (did you mean \"all-of\"?",
        ] {
            #expect(run.output.contains(expected), "\(expected)\n\(run.output)")
        }
        try tree.write("etc/policy.yaml", "gates:\n\topen: { require: x }\n")
        #expect(
            try tree.capctl(["validate"]).output.contains(
                "policy.yaml:2:1: a tab before a line's content: this reader refuses tabs where indentation stands"))
    }

    @Test("a search path or --policy naming nothing that exists is an error, not an empty policy")
    func nothingThere() throws {
        let tree = try PolicyTree()
        var environment = tree.environment
        environment["CAPCTL_POLICY_ROOTS"] = tree.root + "/no-such-root:" + tree.root + "/nor-this"
        let status = try tree.run([PolicyTree.capctl, "status"], extraEnvironment: environment)
        #expect(status.status == 78)
        #expect(status.error.contains("CAPCTL_POLICY_ROOTS names no directory that exists"), "\(status.error)")
        let missing = try tree.capctl(["validate", "--policy", tree.root + "/absent.yaml"])
        #expect(missing.status == 78)
        // The path once, with what the system says.
        #expect(missing.output.contains("\(tree.root)/absent.yaml: No such file or directory"), "\(missing.output)")
        #expect(!missing.output.contains("absent.yaml: \(tree.root)/absent.yaml"))
    }

    @Test("a name given twice in the environment means its first value, as getenv(3) answers")
    func firstOfTwoEqualNames() throws {
        let tree = try PolicyTree()
        try tree.write("etc/policy.yaml", "capabilities:\n  anyone: { kind: group, group: root }\n")
        let roots = "CAPCTL_POLICY_ROOTS=" + [tree.vendor, tree.admin, tree.runtime].joined(separator: ":")
        let nowhere = "CAPCTL_POLICY_ROOTS=" + tree.root + "/no-such-root"
        // A dictionary cannot hold a name twice: the child's environment is written out as it comes.
        func status(_ variables: [String]) -> Int32 {
            let command: [String] = [PolicyTree.capctl, "status"]
            let arguments: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) } + [nil]
            let environment: [UnsafeMutablePointer<CChar>?] =
                (variables + ["NO_COLOR=1", "HOME=\(tree.root)/home", "XDG_CONFIG_HOME=\(tree.root)/config"]).map {
                    strdup($0)
                } + [nil]
            defer { for pointer in arguments + environment { free(pointer) } }
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
            var pid: pid_t = 0
            guard posix_spawn(&pid, PolicyTree.capctl, &actions, nil, arguments, environment) == 0 else { return -1 }
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            return (status >> 8) & 0xFF
        }
        #expect(status([roots, nowhere]) == 0)
        #expect(status([nowhere, roots]) == 78)
    }

    @Test("under --json, errors are JSON on standard error with the exit status")
    func jsonErrors() throws {
        let tree = try PolicyTree()
        try tree.write(
            "etc/policy.yaml",
            "capabilities:\n  nobody-user: { kind: user, user: nobody }\ngates:\n  as-nobody: { require: nobody-user }\n"
        )
        // One JSON object a line: warnings (an audit record this machine has no log for) before the error.
        func error(_ run: CapctlRun) throws -> [String: Any] {
            let objects = try run.error.split(separator: "\n").map { line in
                try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(run.error)")
            }
            #expect(objects.dropLast().allSatisfy { $0.keys.sorted() == ["warning"] }, "\(run.error)")
            return try #require(objects.last, "\(run.error)")
        }
        let unknownGate = try tree.capctl(["check", "nope", "--json"])
        #expect(unknownGate.status == 64)
        #expect(try error(unknownGate)["exitStatus"] as? Int == 64)
        #expect((try error(unknownGate)["error"] as? String)?.contains("no gate \"nope\"") == true)
        let usage = try tree.capctl(["check", "--json"])
        #expect(usage.status == 64)
        #expect((try error(usage)["error"] as? String)?.contains("Missing expected argument") == true)
        let refused = try tree.capctl(["run", "--json", "as-nobody", "--", "/bin/true"])
        #expect(refused.status == 77)
        let object = try error(refused)
        #expect(object["status"] as? String == "fails")
        #expect(object["gate"] as? String == "as-nobody")
        #expect(object["explanation"] is [String: Any])
        try tree.write("etc/policy.yaml", "gates: [\n")
        let broken = try tree.capctl(["status", "--json"])
        #expect(broken.status == 78)
        #expect((try error(broken)["errors"] as? [String])?.first?.hasPrefix("\(tree.admin)/policy.yaml:") == true)
        // Without --json, people's text.
        #expect(try tree.capctl(["status"]).error.hasPrefix("\(tree.admin)/policy.yaml:"))
    }

    @Test("ExecCondition=capctl check GATE --non-interactive --exec-condition: systemd starts, skips or fails the unit")
    func execCondition() throws {
        let tree = try PolicyTree()
        try tree.write(
            "etc/policy.yaml",
            """
            capabilities:
              scratch: { kind: file, path: /tmp }
              nobody-user: { kind: user, user: nobody }
            gates:
              open: { require: scratch, description: Open the spool }
              as-nobody: { require: nobody-user }
            """)
        /// What systemd.service(5) does with an ExecCondition= command's exit status.
        func systemd(_ status: Int32) -> String {
            switch status {
            case 0: "start"
            case 1...254: "skip"
            default: "fail"
            }
        }
        let arguments = ["--non-interactive", "--exec-condition"]
        #expect(systemd(try tree.capctl(["check", "open"] + arguments).status) == "start")
        #expect(systemd(try tree.capctl(["check", "as-nobody"] + arguments).status) == "skip")
        #expect(systemd(try tree.capctl(["check", "no-such-gate"] + arguments).status) == "fail")
        #expect(systemd(try tree.capctl(["check", "open", "--no-such-option"] + arguments).status) == "fail")
        // Usage errors in any spelling capctl recognizes: a misspelt subcommand, a value given to the
        // flag, the option before the subcommand. 64 would have read as "skip".
        #expect(systemd(try tree.capctl(["chekc", "open"] + arguments).status) == "fail")
        #expect(
            systemd(try tree.capctl(["check", "open", "--non-interactive", "--exec-condition=yes"]).status) == "fail")
        #expect(systemd(try tree.capctl(["--exec-condition", "check", "open", "--non-interactive"]).status) == "fail")
        // Plain check (78) would have skipped a unit whose policy is broken: the option is what makes it fail.
        try tree.write("etc/policy.yaml", "gates:\n  open: { require: missing }\n")
        #expect(try tree.capctl(["check", "open", "--non-interactive"]).status == 78)
        #expect(systemd(try tree.capctl(["check", "open"] + arguments).status) == "fail")
    }

    @Test("watch: a time on every line, flag changes as lines of their own, READY=1 and STOPPING=1 to systemd")
    func watchAsAService() async throws {
        let tree = try PolicyTree()
        try tree.writeExportFlag(defaultVariant: "on")
        let notify = try NotifySocket(path: tree.root + "/notify")
        var environment = tree.environment
        environment["NOTIFY_SOCKET"] = notify.path
        let watcher = try StreamingProcess([PolicyTree.capctl, "watch", "--json"], environment: environment)
        try notify.waitFor("READY=1", from: "capctl watch")
        var lines: [[String: Any]] = []
        for _ in 0..<2 {
            let line = try #require(await watcher.nextLine())
            lines.append(try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]))
        }
        let flag = try #require(lines.first { $0["type"] as? String == "flag" }, "\(lines)")
        #expect(flag["name"] as? String == "export")
        #expect(flag["status"] as? String == "true")
        for line in lines {
            let time = try #require(line["time"] as? String)
            #expect(time.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/) != nil, "\(time)")
        }
        try tree.writeExportFlag(defaultVariant: "off")
        var changed: [[String: Any]] = []
        while changed.count < 2, let line = await watcher.nextLine() {
            changed.append(try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]))
        }
        #expect(
            changed.contains { $0["type"] as? String == "flag" && $0["status"] as? String == "false" }, "\(changed)")
        #expect(
            changed.contains { $0["type"] as? String == "capability" && $0["status"] as? String == "denied" })
        watcher.terminate()
        try notify.waitFor("STOPPING=1", from: "capctl watch")
        #expect(watcher.waitUntilExit() == 0)
    }

    @Test("description: shown by status and check --explain; --version names the version and commit")
    func descriptionsAndVersion() throws {
        let tree = try PolicyTree()
        try tree.write(
            "etc/policy.yaml",
            """
            capabilities:
              scratch: { kind: file, path: /tmp, description: The scratch directory }
            gates:
              open: { require: scratch, description: Open the spool }
            """)
        let status = try tree.capctl(["status"])
        #expect(status.output.contains("DESCRIPTION"))
        #expect(status.output.contains("The scratch directory"))
        let json = try tree.capctl(["status", "--json"]).entries("gates")
        #expect(json["open"]?["description"] as? String == "Open the spool")
        let explain = try tree.capctl(["check", "open", "--explain", "--non-interactive"])
        #expect(explain.output.contains("description: Open the spool"), "\(explain.output)")
        let version = try tree.capctl(["--version"])
        #expect(
            version.output.wholeMatch(of: /\d+\.\d+\.\d+ \(commit (unknown|[0-9a-f]{12}(-modified)?)\)\n/) != nil,
            "\(version.output)")
    }

    @Test(
        "capctl links no Foundation, TLS or HTTP library: libcurl is loaded at run time, by the flag service helper alone"
    )
    func leanBinary() throws {
        let linked = try runProcess("/usr/bin/readelf", ["-d", PolicyTree.capctl]).standardOutput
        for library in [
            "libFoundation.so", "libFoundationInternationalization.so", "lib_FoundationICU.so", "libcurl", "libssl",
        ] {
            #expect(!linked.contains(library), "capctl needs \(library)")
        }
        #expect(linked.contains("libc.so"), "readelf did not list capctl's libraries: \(linked)")
        let symbols = try runProcess("/usr/bin/nm", [PolicyTree.capctl]).standardOutput
        #expect(symbols.contains("CapctlV7runMain"), "nm did not list capctl's symbols")
        #expect(
            symbols.contains("CurlLibrary") && symbols.contains("ccurl_setopt_long"), "the helper's code is capctl's")
    }

    @Test(
        "one binary: capctl started as capctld is the decision service, as capctl-flag-source the flag service helper"
    )
    func namesOfOneBinary() throws {
        let directory = try TemporaryDirectory()
        for name in ["capctld", "capctl-flag-source"] {
            #expect(symlink(PolicyTree.capctl, directory.path + "/" + name) == 0)
        }
        let daemon = try runProcess(directory.path + "/capctld", ["--version"])
        #expect(daemon.status == 0 && daemon.standardOutput.hasPrefix("capctld "), "\(daemon.standardOutput)")
        let unknown = try runProcess(directory.path + "/capctld", ["--no-such-option"])
        #expect(unknown.status == 64 && unknown.standardError.contains("capctld: Unknown option"))
        let helper = try runProcess(directory.path + "/capctl-flag-source", [])
        #expect(helper.status == 64, "\(helper.standardError)")
        #expect(helper.standardError.contains("capctl-flag-source: started by capctl"), "\(helper.standardError)")
        let capctl = try runProcess(PolicyTree.capctl, ["--version"])
        #expect(capctl.status == 0 && !capctl.standardOutput.hasPrefix("capctld"), "\(capctl.standardOutput)")
    }

    @Test("without its helper, a flag service's gate is undecided and says why; other gates never need it")
    func missingHelper() throws {
        let alone = builtProductForAnyUser("capctl")
        let tree = try PolicyTree.unreachableService(capabilities: "  scratch: { kind: file, path: /tmp }")
        let remote = try tree.run([alone, "check", "remote", "--non-interactive"], extraEnvironment: [:])
        #expect(remote.status == 1, "\(remote.output)\(remote.error)")
        #expect(remote.output.contains("remote: undecided"), "\(remote.output)")
        #expect(remote.output.contains("cannot find the flag service helper capctl-flag-source"), "\(remote.output)")
        let sources = try tree.run([alone, "flags", "sources"], extraEnvironment: [:])
        // A header line, then the source's line (cells are escaped one by one, not the table's line breaks).
        let lines = sources.output.split(separator: "\n")
        #expect(lines.count == 2 && lines[0].hasPrefix("SOURCE"), "\(sources.output)")
        #expect(lines.last?.hasPrefix("http://127.0.0.1:9/flags.json") == true, "\(sources.output)")
        #expect(sources.output.contains("cannot find the flag service helper"), "\(sources.output)")
        let list = try tree.run([alone, "flags", "list"], extraEnvironment: [:])
        #expect(!list.output.contains("\\n"), "\(list.output)")

        try tree.write(
            "etc/policy.yaml",
            """
            capabilities:
              scratch: { kind: file, path: /tmp }
            gates:
              open: { require: scratch }
            """)
        let local = try tree.run([alone, "check", "open", "--non-interactive"], extraEnvironment: [:])
        #expect(local.status == 0, "\(local.output)\(local.error)")
    }
}
