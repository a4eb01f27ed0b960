import Capabilities
import CapabilityPolicy
import Foundation
import Glibc
import LinuxPolicy
import TestSupport

/// Issue 56's tools on generated policies: `capctl test` over 10,000 cases, `analyze` of a
/// 32-atom gate, and replay of 10,000 recorded decisions beside deciding them live (its floor).
enum PolicyToolWorkloads {
    /// A policy of 28 capabilities (every third a pam login, so statuses may ask) and 4 inline
    /// flags: gate `pairs`, an any-of of 14 all-of pairs and the 4 flags (32 atoms), and gate
    /// `export`, an all-of of three capabilities and a flag, which the test cases decide.
    static func writePolicy(in directory: String) -> String {
        var lines = ["capabilities:"]
        for index in 0..<28 {
            lines.append(
                index % 3 == 0
                    ? "  c\(index): { kind: pam, service: login }" : "  c\(index): { kind: user, user: root }")
        }
        lines += ["flags:", "  inline:", "    flags:"]
        for index in 0..<4 {
            lines.append(
                "      f\(index): { state: ENABLED, variants: { \"on\": true, \"off\": false }, defaultVariant: \"off\" }"
            )
        }
        let pairs = (0..<14).map { "{ all-of: [c\($0 * 2), c\($0 * 2 + 1)] }" } + (0..<4).map { "{ flag: f\($0) }" }
        lines += [
            "gates:", "  pairs: { require: { any-of: [\(pairs.joined(separator: ", "))] } }",
            "  export: { require: { all-of: [c0, c1, { any-of: [c2, { not: { flag: f0 } }] }] } }",
        ]
        let path = directory + "/policy.yaml"
        try! (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// A test file of `count` cases of gate `export`: every assignment of its atoms in turn, each
    /// with the word the gate gives it (worked out here, by rules 15-18, apart from the evaluator).
    static func writeTests(_ count: Int, in directory: String) -> String {
        let statuses = ["authorized", "denied", "unavailable", "notDetermined"]
        var lines = ["policy: [policy.yaml]", "cases:"]
        for index in 0..<count {
            var rest = index
            let (a, b, c) = (statuses[rest % 4], statuses[(rest / 4) % 4], statuses[(rest / 16) % 4])
            rest /= 64
            let flag = rest % 2 == 0
            func word(_ status: String) -> Int {
                // fails < undecided < needsInteraction < holds
                ["denied": 0, "unavailable": 1, "notDetermined": 2, "authorized": 3][status]!
            }
            let notFlag = flag ? 0 : 3
            let anyOf = max(word(c), notFlag)
            let all = min(word(a), word(b), anyOf)
            let expected = ["fails", "undecided", "needsInteraction", "holds"][all]
            lines += [
                "  - name: case \(index)", "    gate: export", "    assume: { c0: \(a), c1: \(b), c2: \(c) }",
                "    flags: { f0: \(flag) }", "    expect: \(expected)",
            ]
        }
        let path = directory + "/policy.test.yaml"
        try! (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static func load(_ policy: String) -> LoadedPolicy {
        try! LoadedPolicy(
            PolicyLoader.load(files: [policy], environment: .linux),
            options: PolicyOptions(watchesFlagFiles: false, pollsFlagServices: false))
    }

    /// Reading and running the test file, with coverage counted: seconds, and the cases that failed.
    static func runTests(_ path: String, on policy: LoadedPolicy) async -> (seconds: Double, failures: Int) {
        let start = ContinuousClock.now
        let file = try! PolicyTestFile.read(path)
        var run = PolicyTestRun()
        await run.run(file, on: policy)
        _ = run.coveredOutcomes
        return (Workloads.seconds(since: start), run.failures.count)
    }

    /// Analyzing gate `pairs`, in seconds.
    static func analyze(_ policy: Policy) -> Double {
        let start = ContinuousClock.now
        let analysis = try! GateAnalysis(gate: "pairs", in: policy)
        precondition(analysis.canHold && analysis.capabilities.count == 28 && analysis.flags.count == 4)
        return Workloads.seconds(since: start)
    }

    /// `count` decisions of gate `export` under assignments in turn, recorded through the audit
    /// trail to a socket of this process and read back as the log's lines.
    static func recordDecisions(_ count: Int, on policy: LoadedPolicy) async -> [String] {
        let path = "/tmp/core-bench-replay-\(getpid())"
        unlink(path)
        let socket = try! boundUnixSocket(at: path, datagram: true)
        defer {
            close(socket)
            unlink(path)
        }
        let trail = AuditTrail(level: .all, destination: .syslog(path: path), identifier: "capctl")
        var lines: [String] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        for index in 0..<count {
            let evaluation = try! await policy.evaluate(gate: "export", assuming: assignment(index))
            trail.record(AuditRecord(action: "check", evaluation: evaluation, policy: policy.policy, subject: nil))
            let received = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            precondition(received > 0, "the record did not arrive")
            lines.append(String(decoding: buffer[..<received], as: UTF8.self))
        }
        return lines
    }

    static func assignment(_ index: Int) -> Assumptions {
        let statuses: [CapabilityStatus.Kind] = [.authorized, .denied, .unavailable, .notDetermined]
        return Assumptions(
            capabilities: [
                "c0": statuses[index % 4], "c1": statuses[(index / 4) % 4], "c2": statuses[(index / 16) % 4],
            ],
            flags: ["f0": .bool(index / 64 % 2 == 0)])
    }

    /// Replaying `lines`: each read back and decided again; seconds, and how many came out the same.
    static func replay(_ lines: [String], on policy: LoadedPolicy) async -> (seconds: Double, same: Int) {
        let start = ContinuousClock.now
        var same = 0
        for line in lines {
            let decision = try! RecordedDecision(reading: line)
            let replay = try! await PolicyReplay(
                gate: decision.gate, statuses: decision.statuses, recorded: decision.outcome, policy: policy)
            if replay.isSame { same += 1 }
        }
        return (Workloads.seconds(since: start), same)
    }

    /// The floor of replay: deciding the same gates live with the same statuses given.
    static func decideLive(_ count: Int, on policy: LoadedPolicy) async -> Double {
        let start = ContinuousClock.now
        for index in 0..<count { _ = try! await policy.evaluate(gate: "export", assuming: assignment(index)) }
        return Workloads.seconds(since: start)
    }
}
