import CapabilityPolicy
import DecisionService
import Foundation
import Glibc
import LinuxBackends
import TestSupport
import Testing
import Varlink

/// One decision, every route: a matrix of gates and subjects decided by capctl in-process, capctl
/// through capctld, `DecisionClient`, the Python varlink client, and read back from the audit
/// records both routes write and from capctld's metrics. Every route must give the same word.
@Suite(
    "one decision, every route", .serialized,
    .enabled(if: geteuid() == 0 && SyslogReceiver.isAvailable, "needs root (setpriv) and rsyslogd"),
    .timeLimit(.minutes(5)))
struct RouteAgreementTests {
    static let policy =
        CapctldTests.capabilities + """
            flags:
              inline:
                flags:
                  maintenance: { state: ENABLED, variants: { "on": true, "off": false }, defaultVariant: "on" }
                  # Its targeting names a variant it does not have: an evaluation error, so undecided.
                  broken:
                    state: ENABLED
                    variants: { "on": true, "off": false }
                    defaultVariant: "off"
                    targeting: { "if": [true, { "cat": ["mis", "sing"] }, "off"] }
            gates:
              operators-only: { require: operators }
              not-operators: { require: { not: operators } }
              root-only: { require: is-root, description: Root alone. }
              either: { require: { any-of: [operators, is-root] } }
              both: { require: { all-of: [operators, is-root] } }
              in-maintenance: { require: { all-of: [{ flag: maintenance }, operators] } }
              broken-flag: { require: { any-of: [{ flag: broken }, { not: operators }] } }
              admin-login: { require: admin }
              operator-login: { require: { all-of: [operators, admin] } }
            """

    /// Who asks: root, a member of group 4242, and nobody with no groups.
    struct Asker: CustomStringConvertible {
        let name: String
        let uid: UInt32
        let groups: String
        var description: String { name }

        /// `command` run as this asker (root: as is).
        func running(_ command: [String]) -> [String] {
            uid == 0 ? command : ["/usr/bin/setpriv", "--reuid=\(uid)", "--regid=\(uid)", groups] + command
        }
    }

    static let askers = [
        Asker(name: "root", uid: 0, groups: ""), Asker(name: "operator", uid: 4321, groups: "--groups=4242"),
        Asker(name: "nobody", uid: 65534, groups: "--clear-groups"),
    ]

    static let checkedGates = [
        "operators-only", "not-operators", "root-only", "either", "both", "in-maintenance", "broken-flag",
        "admin-login", "operator-login",
    ]

    /// One route's word for a case.
    struct Answer: CustomStringConvertible {
        let route: String
        let word: String?
        var description: String { "\(route): \(word ?? "no decision")" }
    }

    /// capctl's word for a gate, run as `asker` (off Swift's shared threads: the matrix runs a
    /// hundred processes), asking the capctld at `socket` or, without one, in-process.
    static func capctl(
        _ arguments: [String], as asker: Asker, socket: String?, policyFile: String, input: String = "",
        auditSocket: String? = nil
    ) async throws -> String? {
        var environment = ["PATH": "/usr/bin:/bin", "HOME": "/nonexistent"]
        var command = [builtProduct("capctl")] + arguments
        if let socket {
            environment["CAPCTL_DAEMON_SOCKET"] = socket
        } else {
            environment["CAPCTL_DAEMON_SOCKET"] = ""
            command += ["--policy", policyFile]
        }
        if let auditSocket { environment["CAPCTL_AUDIT_SOCKET"] = auditSocket }
        let (full, variables) = (asker.running(command), environment)
        let run = try await offSharedThreads {
            try runProcess(full[0], Array(full.dropFirst()), environment: variables, input: input)
        }
        let reply = (try? JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8))) as? [String: Any]
        return reply?["status"] as? String
    }

    static func python(_ arguments: [String], socket: String, as asker: Asker, input: String = "") async throws
        -> String?
    {
        guard let python = CapctldTests.python else {
            Issue.record("no varlink client: run Scripts/test, which makes .build/capctld-client-venv")
            return nil
        }
        let command = asker.running([python, CapctldTests.script, socket] + arguments)
        let run = try await offSharedThreads { try runProcess(command[0], Array(command.dropFirst()), input: input) }
        let replies = run.standardOutput.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }
        return CapctldTests.decision(replies.last)["outcome"] as? String
    }

    /// The CAPCTL_ fields of a system log record.
    static func fields(_ record: String?) -> [String: String] {
        guard let record else { return [:] }
        var fields: [String: String] = [:]
        let pattern = try! NSRegularExpression(pattern: #"(CAPCTL_[A-Z_]+)="((?:[^"\\]|\\.)*)""#)
        let text = record as NSString
        for match in pattern.matches(in: record, range: NSRange(location: 0, length: text.length)) {
            fields[text.substring(with: match.range(at: 1))] = text.substring(with: match.range(at: 2))
        }
        return fields
    }

    /// A process running as `asker`, for the routes that name a subject by pid, start time and uid.
    static func subjectProcess(_ asker: Asker) async throws -> (DaemonProcess, pid: Int32, startTime: UInt64) {
        let process = try DaemonProcess(
            asker.running(["/bin/sh", "-c", "echo ready; exec sleep 600"]), environment: ["PATH": "/usr/bin:/bin"])
        #expect(await process.nextLine() == "ready")
        let stat = try String(contentsOfFile: "/proc/\(process.pid)/stat", encoding: .utf8)
        let fields = stat[stat.range(of: ")")!.upperBound...].split(separator: " ")
        return (process, process.pid, UInt64(fields[19])!)
    }

    @Test(
        "every gate for every asker, without asking: one word on every route, in both audit trails and in the metrics")
    func checks() async throws {
        let capctldAudit = try SyslogReceiver()
        let capctlAudit = try SyslogReceiver()
        let daemon = try await CapctldTests.Daemon(policy: Self.policy, audit: capctldAudit)
        let client = try DecisionClient(path: daemon.socket)
        var cases = 0
        var seen: Set<String> = []
        var checkCounts: [String: Int] = [:]
        var subjectCounts: [String: Int] = [:]
        for asker in Self.askers {
            let (process, pid, startTime) = try await Self.subjectProcess(asker)
            defer { process.stop() }
            for gate in Self.checkedGates {
                cases += 1
                var answers: [Answer] = []
                var capctldRecords: [[String: String]] = []
                let inProcess = try await Self.capctl(
                    ["check", gate, "--json", "--non-interactive"], as: asker, socket: nil,
                    policyFile: daemon.policyFile)
                answers.append(Answer(route: "capctl in-process", word: inProcess))
                let throughCapctld = try await Self.capctl(
                    ["check", gate, "--json", "--non-interactive"], as: asker, socket: daemon.socket,
                    policyFile: daemon.policyFile)
                answers.append(Answer(route: "capctl through capctld", word: throughCapctld))
                capctldRecords.append(Self.fields(await capctldAudit.nextRecord()))
                let python = try await Self.python(["check", gate], socket: daemon.socket, as: asker)
                answers.append(Answer(route: "Python varlink", word: python))
                capctldRecords.append(Self.fields(await capctldAudit.nextRecord()))
                for word in [throughCapctld, python].compactMap({ $0 }) { checkCounts[word, default: 0] += 1 }
                // DecisionClient and capctl in-process, each naming the asker's process: both audit it.
                let uid = asker.uid
                let decision = try await offSharedThreads {
                    try client.check(gate, forProcess: pid, startTime: startTime, uid: uid)
                }
                answers.append(Answer(route: "DecisionClient", word: decision.outcome.rawValue))
                subjectCounts[decision.outcome.rawValue, default: 0] += 1
                let clientRecord = Self.fields(await capctldAudit.nextRecord())
                capctldRecords.append(clientRecord)
                let forProcess = try await Self.capctl(
                    ["check", gate, "--json", "--for-process", "\(pid),\(startTime),\(asker.uid)"],
                    as: Self.askers[0], socket: nil, policyFile: daemon.policyFile,
                    auditSocket: capctlAudit.socketPath)
                answers.append(Answer(route: "capctl in-process for the process", word: forProcess))
                let capctlRecord = Self.fields(await capctlAudit.nextRecord())
                for (index, record) in capctldRecords.enumerated() {
                    answers.append(Answer(route: "capctld's audit record \(index + 1)", word: record["CAPCTL_OUTCOME"]))
                }
                answers.append(Answer(route: "capctl's audit record", word: capctlRecord["CAPCTL_OUTCOME"]))
                let words = Set(answers.map(\.word))
                #expect(words.count == 1 && inProcess != nil, "\(gate) for \(asker): \(answers)")
                if let inProcess { seen.insert(inProcess) }
                // The two records of one decision for one subject are the same but for the action.
                for field in ["CAPCTL_OUTCOME", "CAPCTL_REASONS", "CAPCTL_POLICY", "CAPCTL_UID", "CAPCTL_PID"] {
                    #expect(
                        clientRecord[field] == capctlRecord[field],
                        "\(gate) for \(asker): \(field): capctld \(clientRecord[field] ?? "-"), capctl \(capctlRecord[field] ?? "-")"
                    )
                }
            }
        }
        #expect(cases >= 27)
        // A matrix that gives one word everywhere must still have met every word a check can give.
        #expect(seen == ["holds", "fails", "undecided", "needsInteraction"], "\(seen)")
        #expect(try client.check("root-only").outcome == .holds)
        checkCounts["holds", default: 0] += 1
        let metrics = try #require(try client.call(metrics: ()))
        for (method, counts) in [("check", checkCounts), ("check-for-subject", subjectCounts)] {
            for (word, count) in counts {
                #expect(
                    metrics.contains(#"capctld_decisions_total{method="\#(method)",outcome="\#(word)"} \#(count)"#),
                    "\(method) \(word) \(count): \(metrics)")
            }
        }
    }

    @Test("logins asked and dismissed: the right password, a wrong one and none give one word on every route")
    func authorizations() async throws {
        let capctldAudit = try SyslogReceiver()
        let daemon = try await CapctldTests.Daemon(policy: Self.policy, audit: capctldAudit)
        var seen: Set<String> = []
        var cases = 0
        for asker in Self.askers {
            for gate in ["admin-login", "operator-login"] {
                for input in ["secret\n", "wrong\n", ""] {
                    cases += 1
                    var answers: [Answer] = []
                    let arguments = ["check", gate, "--json", "--password-stdin"]
                    answers.append(
                        Answer(
                            route: "capctl in-process",
                            word: try await Self.capctl(
                                arguments, as: asker, socket: nil, policyFile: daemon.policyFile, input: input)))
                    // Through capctld, capctl checks first and authorizes when asking could open it.
                    let through = try await Self.capctl(
                        arguments, as: asker, socket: daemon.socket, policyFile: daemon.policyFile, input: input)
                    answers.append(Answer(route: "capctl through capctld", word: through))
                    var records = [Self.fields(await capctldAudit.nextRecord())]
                    if records[0]["CAPCTL_OUTCOME"] == "needsInteraction" {
                        records = [Self.fields(await capctldAudit.nextRecord())]
                    }
                    let python = try await Self.python(
                        ["authorize", gate], socket: daemon.socket, as: asker, input: input)
                    answers.append(Answer(route: "Python varlink", word: python))
                    records.append(Self.fields(await capctldAudit.nextRecord()))
                    if asker.uid == 0 {
                        let client = try DecisionClient(path: daemon.socket)
                        let password = input.isEmpty ? nil : String(input.dropLast())
                        let answered = try await offSharedThreads {
                            try client.authorize(gate: gate, conversation: ScriptedAnswers(password))
                        }
                        answers.append(Answer(route: "DecisionClient", word: answered.outcome.rawValue))
                        records.append(Self.fields(await capctldAudit.nextRecord()))
                    }
                    for (index, record) in records.enumerated() {
                        answers.append(
                            Answer(route: "capctld's audit record \(index + 1)", word: record["CAPCTL_OUTCOME"]))
                    }
                    let words = Set(answers.map(\.word))
                    #expect(words.count == 1, "\(gate) for \(asker), answering \(input.debugDescription): \(answers)")
                    if let word = answers.first?.word { seen.insert(word) }
                }
            }
        }
        #expect(cases >= 18)
        #expect(seen == ["holds", "fails", "dismissed"], "\(seen)")
    }
}

/// A conversation that answers every secret question with one password, or declines (nil).
struct ScriptedAnswers: PAMConversation {
    let password: String?
    init(_ password: String?) { self.password = password }

    func answer(_ prompt: PAMMessage) -> PAMAnswer {
        password.map { .secret(PAMSecret($0)) } ?? .cancel
    }

    func show(_ message: PAMMessage) {}
}

extension DecisionClient {
    /// capctld's metrics text (root only).
    func call(metrics: Void) throws -> String? {
        let client = try VarlinkClient(path: path)
        guard case .string(let text)? = try client.call("org.capctl.gates.Metrics")["text"] else { return nil }
        return text
    }
}

/// The Python example of Docs/Decisions.md, run as it is printed there.
@Suite(
    "the documented Python client", .serialized, .enabled(if: geteuid() == 0, "needs root to run it as uid 65534"),
    .timeLimit(.minutes(2)))
struct DocumentedPythonClientTests {
    /// The first Python block after "this is the whole client" in Docs/Decisions.md.
    static func example() throws -> String {
        let documentation = try String(
            contentsOfFile: URL(fileURLWithPath: #filePath).deletingLastPathComponent().path
                + "/../../Docs/Decisions.md", encoding: .utf8)
        let after = try #require(documentation.range(of: "this is the whole client"))
        let start = try #require(
            documentation.range(of: "```python\n", range: after.upperBound..<documentation.endIndex))
        let end = try #require(documentation.range(of: "```", range: start.upperBound..<documentation.endIndex))
        return String(documentation[start.upperBound..<end.lowerBound])
    }

    @Test("Docs/Decisions.md's Python Authorize client, at most 15 lines, logs in with the stock varlink package")
    func example() async throws {
        let code = try Self.example()
        #expect(code.split(separator: "\n", omittingEmptySubsequences: false).dropLast().count <= 15, "\(code)")
        let python = try #require(CapctldTests.python, "no varlink client: run Scripts/test")
        let daemon = try await CapctldTests.Daemon()
        let directory = try TemporaryDirectory(prefix: "python-example")
        chmod(directory.path, 0o755)
        let script = try directory.write(
            code.replacingOccurrences(of: "restart-unit", with: "admin-login"), to: "authorize.py")
        chmod(script, 0o644)
        // In a session of its own: getpass reads the terminal when there is one, standard input here.
        func run(_ input: String) throws -> ProcessOutput {
            try runProcess(
                "/usr/bin/setsid",
                [
                    "--wait", "/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", python, script,
                    daemon.socket,
                ],
                environment: ["PATH": "/usr/bin:/bin"], input: input)
        }
        let right = try run("secret\n")
        #expect(right.standardOutput == "holds\n", "\(right.standardOutput)\(right.standardError)")
        #expect(right.standardError.contains("password for "), "the question was shown: \(right.standardError)")
        // Three tries, as sudo gives: after each wrong password but the last, "Sorry, try again."
        let wrong = try run("wrong\nguess\nagain\n")
        #expect(wrong.standardOutput == "fails\n", "\(wrong.standardOutput)\(wrong.standardError)")
        #expect(
            wrong.standardError.components(separatedBy: "Sorry, try again.").count == 3, "\(wrong.standardError)")
        let second = try run("wrong\nsecret\n")
        #expect(second.standardOutput == "holds\n", "\(second.standardOutput)\(second.standardError)")
    }
}
