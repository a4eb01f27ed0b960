import Capabilities
import CapabilityPolicy
import ConfigurationFiles
import FeatureFlags
import Foundation
import Glibc
import LinuxBackends
import LinuxPolicy
import ProcedureCore
import TestSupport
import Testing

/// Policy files: strict parsing with positions, references, cycles, deny by default, and
/// gates that behave as the core's conditions.
@Suite("Policy files")
struct PolicyFileTests {
    /// Writes `text` as a policy file (mode 0644 in a 0755 directory) and loads it.
    private func load(_ text: String, name: String = "policy.yaml") throws -> (Policy, String) {
        let directory = TestRunDirectory.path + "/policy-test-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        chmod(directory, 0o755)
        let file = directory + "/" + name
        try text.write(toFile: file, atomically: false, encoding: .utf8)
        chmod(file, 0o644)
        return (try PolicyLoader.load(files: [file], environment: .linux), file)
    }

    private func errors(_ text: String, name: String = "policy.yaml") -> [ConfigurationError] {
        do {
            _ = try load(text, name: name)
            return []
        } catch let error as PolicyErrors {
            return error.errors
        } catch {
            return [ConfigurationError("\(error)")]
        }
    }

    @Test("every kind of capability is read")
    func kinds() throws {
        let (policy, _) = try load(
            """
            capabilities:
              admin: { kind: pam, service: login, user: root, keep: 5m, account-check: false, description: Administrators }
              data: { kind: file, path: /tmp, access: [read, write, create], type: directory }
              db: { kind: host, host: db.example.com, port: 5432, timeout: 1500ms }
              online: { kind: network }
              low-ports: { kind: process-capability, capability: net_bind_service }
              root-user: { kind: user, user: root }
              wheel: { kind: group, group: "0" }
              beta: { kind: flag, flag: beta, equals: "on" }
            flags:
              inline:
                flags:
                  beta: { state: ENABLED, variants: { "on": "on", "off": "off" }, defaultVariant: "on" }
            """)
        #expect(policy.capabilities.count == 8)
        #expect(policy.capabilities["admin"]?.kind == "pam")
        #expect(
            policy.capabilities["admin"]?.settings
                == CapabilitySettings([
                    "service": .string("login"), "user": .string("root"), "keep": .duration(.seconds(300)),
                    "account-check": .boolean(false),
                ]))
        #expect(policy.capabilities["db"]?.kind == "host")
        #expect(
            policy.capabilities["db"]?.settings
                == CapabilitySettings([
                    "host": .string("db.example.com"), "port": .integer(5432),
                    "timeout": .duration(.milliseconds(1500)),
                ]))
        #expect(policy.capabilities["admin"]?.summary == "Administrators")
        let loaded = try LoadedPolicy(policy)
        #expect(try loaded.capability(named: "low-ports").name == "capability:CAP_NET_BIND_SERVICE")
    }

    @Test("strict: unknown keys, wrong types and bad values are errors with line and column")
    func strictness() {
        func first(_ text: String) -> String {
            errors(text).first.map { "\($0.location?.line ?? 0):\($0.location?.column ?? 0) \($0.message)" }
                ?? "no error"
        }
        #expect(first("capabilities:\n  a: { kind: file, paht: /tmp }\n").hasPrefix("2:20 unknown key \"paht\""))
        #expect(first("capabilities:\n  a: { kind: fiel, path: /tmp }\n").hasPrefix("2:14 unknown kind \"fiel\""))
        #expect(first("capabilities:\n  a: { path: /tmp }\n").hasPrefix("2:3 capability \"a\" needs a \"kind\""))
        #expect(first("capabilities:\n  a: { kind: file, path: tmp }\n").contains("absolute path"))
        #expect(first("capabilities:\n  a: { kind: host, host: db, port: 99999 }\n").contains("out of range"))
        #expect(first("capabilities:\n  a: { kind: host, host: db, port: \"80\" }\n").contains("whole number"))
        #expect(first("capabilities:\n  a: { kind: group, group: no-such-group-here }\n").contains("unknown group"))
        #expect(
            first("capabilities:\n  a: { kind: process-capability, capability: CAP_FLY }\n").contains(
                "unknown Linux capability"))
        #expect(first("capabilities:\n  a: { kind: pam, service: login, keep: soon }\n").contains("duration"))
        #expect(
            first("capabilities:\n  a: { kind: file, path: /tmp, access: [read, fly] }\n").contains(
                "\"access\" must be a list"))
        #expect(first("gates:\n  g: { require: { every: [a] } }\n").hasPrefix("2:19 unknown requirement \"every\""))
        #expect(first("gates:\n  g: { requires: a }\n").contains("unknown key \"requires\""))
        #expect(first("gatez: {}\n").hasPrefix("1:1 unknown key \"gatez\""))
        #expect(first("capabilities: [a, b]\n").contains("must be a mapping"))
    }

    /// YAML 1.2 reads `yes`, `on` and `Y` as strings; a comparison of a Boolean flag with one
    /// never matched, so `{ not: maint-on }` opened while maintenance was on, and the policy
    /// loaded. Now the comparison is checked against the flag's variants when the policy loads.
    @Test(
        "equals: a value of no variant's type is a load error at its position, with what was meant",
        arguments: [
            ("yes", #"with a string ("yes"), but its variants are boolean"#, "write equals: true (YAML 1.2 reads"),
            ("on", #"with a string ("on"), but its variants are boolean"#, "write equals: true (YAML 1.2 reads"),
            ("\"true\"", #"with a string ("true"), but its variants are boolean"#, "write equals: true without quotes"),
            ("Off", #"with a string ("Off"), but its variants are boolean"#, "write equals: false (YAML 1.2"),
            ("1", #"with a number (1), but its variants are boolean"#, "it would never match"),
        ])
    func comparisonTypes(equals: String, problem: String, hint: String) {
        let found = errors(
            """
            capabilities:
              maint-on: { kind: flag, flag: maintenance, equals: \(equals) }
            gates:
              deploy: { require: { not: maint-on } }
            flags:
              inline:
                flags:
                  maintenance: { state: ENABLED, variants: { "on": true, "off": false }, defaultVariant: "on" }
            """)
        #expect(found.count == 1)
        #expect(found.first?.location?.line == 2 && found.first?.location?.column == 54, "\(found)")
        #expect(found.first?.message.contains(problem) == true, "\(found)")
        #expect(found.first?.message.contains(hint) == true, "\(found)")
    }

    /// A `|` block keeps its last line break: `path: |` named "/srv/data\n", another file than the
    /// one shown. Values that name things are one line.
    @Test(
        "a path, a PAM service, a URL or a name ending in a line break is refused at its position",
        arguments: [
            ("capabilities:\n  a:\n    kind: file\n    path: |\n      /srv/data\n", 4, 11, "path"),
            ("capabilities:\n  a: { kind: pam, service: \"login\\n\" }\n", 2, 28, "service"),
            ("capabilities:\n  a:\n    kind: user\n    user: >\n      root\n", 4, 11, "user"),
            ("flags:\n  http:\n    - url: \"https://flags.example.com/f.json\\n\"\n", 3, 12, "url"),
            ("flags:\n  files: [\"/etc/flags.json\\n\"]\n", 2, 11, "files"),
            ("capabilities:\n  a: { kind: group, group: \"wheel\\nx\" }\n", 2, 28, "group"),
            ("capabilities:\n  a: { kind: file, path: \"/tmp/a\\0b\" }\n", 2, 26, "path"),
        ])
    func lineBreaksInNames(text: String, line: Int, column: Int, key: String) {
        let found = errors(text)
        #expect(found.first?.location?.line == line && found.first?.location?.column == column, "\(found)")
        #expect(found.first?.message.hasPrefix("\"\(key)\" in ") == true, "\(found)")
        #expect(found.first?.message.contains("is one line") == true, "\(found)")
    }

    @Test("a gate's flag: must name a flag with a Boolean variant; matching types load")
    func gateFlagTypes() throws {
        let found = errors(
            """
            gates:
              g: { require: { flag: color } }
            flags:
              inline:
                flags:
                  color: { state: ENABLED, variants: { red: red, blue: blue }, defaultVariant: red }
            """)
        #expect(
            found.first?.message.contains("compares flag \"color\" with a boolean (true), but its variants are string")
                == true, "\(found)")
        _ = try load(
            """
            capabilities:
              red: { kind: flag, flag: color, equals: red }
              on: { kind: flag, flag: beta, equals: true }
            gates:
              g: { require: { all-of: [red, on, { flag: beta }] } }
            flags:
              inline:
                flags:
                  color: { state: ENABLED, variants: { red: red, blue: blue }, defaultVariant: red }
                  beta: { state: ENABLED, variants: { "on": true, "off": false }, defaultVariant: "on" }
            """)
    }

    /// What loading cannot see (a flag a service serves) is caught when it is evaluated: a value
    /// of another type is undecided, never "not held", so `not` cannot open on it.
    @Test("a flag of another type than equals is undecided at evaluation, so not: cannot open")
    func comparisonTypeAtEvaluation() async throws {
        let flags = FlagStore(
            flagSets: [
                try FlagSet.parse(
                    #"{"flags": {"maintenance": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "on"}}}"#,
                    file: "flags.json", format: .json)
            ], files: [], watchesFiles: false, context: FlagEvaluationContext())
        let capability = FeatureFlag("maintenance", in: flags, equals: "yes")
        let status = try await capability.status()
        #expect(status.kind == .unavailable, "a Boolean flag compared with \"yes\" was \(status)")
        #expect(status.cause == .misconfigured)
        #expect(status.reason.contains(#"compared with a string ("yes")"#), "\(status.reason)")
        let procedure = BlockProcedure {}
        procedure.addCondition(Negated(FlagEquals("maintenance", "yes", in: flags)))
        await run(procedure)
        #expect(procedure.error != nil, "not(maintenance == \"yes\") let the work run")
    }

    @Test("every error of a file is reported, not only the first")
    func allErrors() {
        let found = errors(
            """
            capabilities:
              a: { kind: file, paht: /tmp }
              b: { kind: fiel }
            gates:
              g: { require: c }
            """)
        #expect(found.count == 3)
        #expect(found.map { $0.location?.line } == [2, 3, 5])
    }

    @Test("references to undefined names and cycles between gates are errors")
    func references() {
        let undefined = errors(
            """
            capabilities:
              data: { kind: file, path: /tmp }
            gates:
              g: { require: { all-of: [data, dtaa, { gate: h }, { flag: nope }] } }
            """)
        #expect(undefined.count == 3)
        #expect(undefined.contains { $0.message.contains("capability \"dtaa\"") && $0.location?.line == 4 })
        #expect(undefined.contains { $0.message.contains("gate \"h\"") })
        #expect(undefined.contains { $0.message.contains("flag \"nope\"") })
        let cycle = errors(
            """
            gates:
              a: { require: { gate: b } }
              b: { require: { not: { gate: a } } }
            """)
        #expect(cycle.count == 1)
        #expect(cycle.first?.message.contains("cycle: a -> b -> a") == true)
    }

    @Test("deny by default: unknown gates and capabilities are errors, never open gates")
    func denyByDefault() throws {
        let loaded = try LoadedPolicy(try load("capabilities:\n  data: { kind: file, path: /tmp }\n").0)
        #expect(throws: ConfigurationError.self) { try loaded.condition(forGate: "export") }
        #expect(throws: ConfigurationError.self) { try loaded.capability(named: "dtaa") }
    }

    @Test("gates become the core's conditions: Negated, Silent, any-of, all-of, flags")
    func gates() async throws {
        let (policy, _) = try load(
            """
            capabilities:
              tmp: { kind: file, path: /tmp }
              missing: { kind: file, path: /nonexistent }
            flags:
              inline:
                flags:
                  on: { state: ENABLED, variants: { "y": true, "n": false }, defaultVariant: "y" }
            gates:
              both: { require: { all-of: [tmp, missing] } }
              either: { require: { any-of: [missing, tmp] } }
              absent: { require: { not: { silent: missing } } }
              flagged: { require: { all-of: [{ flag: on }, { gate: either }] } }
            """)
        let loaded = try LoadedPolicy(policy)
        func passes(_ gate: String) async throws -> Bool {
            let procedure = BlockProcedure {}
            procedure.addCondition(try loaded.condition(forGate: gate))
            await run(procedure)
            let evaluation = try await loaded.evaluate(gate: gate)
            #expect(
                (evaluation.outcome == .satisfied) == (procedure.error == nil), "the two evaluations agree on \(gate)")
            return procedure.error == nil
        }
        #expect(try await !passes("both"))
        #expect(try await passes("either"))
        // A missing file is unavailable: undecided, so not even its silent negation holds.
        #expect(try await !passes("absent"))
        #expect(try await passes("flagged"))
    }
}

/// Errors that teach: a suggestion for every misspelt name, and one error per typo.
@Suite("Policy errors that teach")
struct PolicySuggestionTests {
    private func messages(_ text: String) -> [String] {
        switch PolicyLoader.parse(text, file: "p.yaml", environment: .linux) {
        case .success: []
        case .failure(let errors): errors.errors.map(\.description)
        }
    }

    @Test("misspelt keys, kinds, gates, capabilities and flags get a suggestion; each typo one error")
    func suggestions() {
        let found = messages(
            """
            capabilities:
              admin:
                kind: pam
                servce: login
              data:
                kind: fil
                path: /tmp
            gates:
              export:
                require: { all-of: [admin, data, { flag: new-exprt }] }
              backup:
                require: { all-of: [{ gate: exprt }, admn] }
            flags:
              inline:
                flags:
                  new-export: { state: ENABLED, variants: { "on": true, "off": false }, defaultVariant: "off" }
            """)
        // Other suites register kinds of their own, so the list of kinds is not compared.
        #expect(found.count == 5)
        #expect(
            found.dropFirst().first?.hasPrefix(
                "p.yaml:6:11: unknown kind \"fil\" in capability \"data\" (did you mean \"file\"? kinds: ") == true)
        #expect(
            found.prefix(1) + found.dropFirst(2) == [
                "p.yaml:4:5: unknown key \"servce\" in capability \"admin\" (did you mean \"service\"? expected \"kind\", \"description\", \"service\", \"user\", \"service-directory\", \"keep\", \"account-check\", \"tries\", \"root\")",
                "p.yaml:10:46: gate \"export\" uses flag \"new-exprt\", which no flag source defines (did you mean \"new-export\"?)",
                "p.yaml:12:33: gate \"backup\" uses gate \"exprt\", which no policy file defines (did you mean \"export\"?)",
                "p.yaml:12:42: gate \"backup\" uses capability \"admn\", which no policy file defines (did you mean \"admin\"?)",
            ])
    }

    @Test("nothing is suggested for a name unlike every known one")
    func noWildGuesses() {
        #expect(NameSuggestion.closest(to: "zebra", among: ["export", "backup"]) == nil)
        #expect(NameSuggestion.closest(to: "backpu", among: ["export", "backup"]) == "backup")
        #expect(NameSuggestion.closest(to: "EXPORT", among: ["export", "backup"]) == "export")
        #expect(NameSuggestion.closest(to: "ab", among: ["xy"]) == nil)
    }
}
