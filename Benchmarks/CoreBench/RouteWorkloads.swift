import Capabilities
import CapabilityPolicy
import FeatureFlags
import Foundation
import Glibc
import LinuxBackends
import LinuxPolicy
import RouteGates

/// A gated route beside an ungated one of the same web service (Examples/GatedWebService's
/// Hummingbird build), under wrk's load from loopback: the requests per second of each, in rounds
/// that alternate which goes first, and the median of the rounds' own ratios (issue 57: at least
/// 0.85x). Both routes pass the same authentication middleware (a proxy's user header); the gated
/// one decides a group and a flag for the request's user and records the decision (to a datagram
/// sink, as to journald).
enum RouteWorkloads {
    /// The gate of `/status`: the request's user in group root, outside maintenance.
    static let policy = """
        capabilities:
          root-group: { kind: group, group: root }
        flags:
          files: [flags.json]
        gates:
          status: { require: { all-of: [root-group, { not: { flag: maintenance } }] } }

        """
    static let flags = """
        {"flags": {"maintenance": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off"}}}

        """

    /// The route gate alone, in this process: `count` decisions of `/status` for root, each
    /// recorded to `auditSink`; nanoseconds a decision (the least of three runs), and its parts:
    /// the policy's evaluation alone, and the audit record alone.
    static func decideInProcess(_ count: Int, auditSink: String) async -> (
        decide: Double, lookup: Double, evaluate: Double, record: Double
    ) {
        let directory = "/tmp/core-bench-route-gate-\(getpid())"
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try! policy.write(toFile: directory + "/policy.yaml", atomically: true, encoding: .utf8)
        try! flags.write(toFile: directory + "/flags.json", atomically: true, encoding: .utf8)
        let loaded = try! LoadedPolicy(
            PolicyLoader.load(files: [directory + "/policy.yaml"], environment: .linux),
            options: PolicyOptions(watchesFlagFiles: false, pollsFlagServices: false))
        let trail = AuditTrail(destination: .syslog(path: auditSink), identifier: "core-bench")
        let gate = RouteGate("status", policy: loaded, audit: trail)
        let subject = try! Subject.user(named: "root")
        var best = (
            decide: Double.infinity, lookup: Double.infinity, evaluate: Double.infinity, record: Double.infinity
        )
        for _ in 0..<3 {
            var start = ContinuousClock.now
            for _ in 0..<count {
                let decision = await gate.decide(RouteRequest(user: "root", method: "GET", path: "/status"))
                precondition(decision.response == .pass, decision.reasons)
            }
            best.decide = min(best.decide, Workloads.seconds(since: start) * 1e9 / Double(count))
            start = ContinuousClock.now
            for _ in 0..<count { _ = try! Subject.user(named: "root") }
            best.lookup = min(best.lookup, Workloads.seconds(since: start) * 1e9 / Double(count))
            start = ContinuousClock.now
            var last: GateEvaluation?
            for _ in 0..<count {
                last = try! await loaded.evaluate(
                    gate: "status", context: FlagEvaluationContext(targetingKey: "root"), subject: subject)
            }
            best.evaluate = min(best.evaluate, Workloads.seconds(since: start) * 1e9 / Double(count))
            start = ContinuousClock.now
            for _ in 0..<count {
                trail.record(AuditRecord(action: "route", evaluation: last!, policy: loaded.policy, subject: subject))
            }
            best.record = min(best.record, Workloads.seconds(since: start) * 1e9 / Double(count))
        }
        return best
    }

    struct Result {
        var ungated: [Double] = []
        var gated: [Double] = []
        var ratios: [Double] = []
    }

    /// Runs `rounds` paired rounds of `seconds` each against `server`, or nil when wrk is missing.
    static func measure(server: String, rounds: Int, seconds: Int, auditSink: String) -> Result? {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/wrk") else { return nil }
        guard FileManager.default.isExecutableFile(atPath: server) else {
            print(
                "core-bench: no server at \(server): swift build -c release --package-path Examples/GatedWebService"
                    + " --scratch-path .build-web-release --product gated-web-service")
            exit(2)
        }
        let directory = "/tmp/core-bench-routes-\(getpid())"
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try! policy.write(toFile: directory + "/policy.yaml", atomically: true, encoding: .utf8)
        try! flags.write(toFile: directory + "/flags.json", atomically: true, encoding: .utf8)
        let port = 20_000 + Int(getpid() % 20_000)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: server)
        process.arguments = [
            "--policy", directory + "/policy.yaml", "--port", String(port), "--proxy-user-header", "X-Remote-User",
            "--audit-socket", auditSink,
        ]
        CorePlacement.start(process, on: serverCore)
        process.standardOutput = FileHandle.nullDevice
        try! process.run()
        defer {
            process.terminate()
            process.waitUntilExit()
        }
        let base = "http://127.0.0.1:\(port)"
        // Up when /status answers 200 for root (a benchmark may poll; a test may not).
        var up = false
        for _ in 0..<200 where !up {
            up = wrk(base + "/status", seconds: 1, connections: 1) > 0
            if !up { usleep(50_000) }
        }
        precondition(up, "\(server) did not answer on port \(port)")
        var result = Result()
        for round in 0..<rounds {
            let order = round % 2 == 0 ? ["/health", "/status"] : ["/status", "/health"]
            var rates: [String: Double] = [:]
            for path in order { rates[path] = wrk(base + path, seconds: seconds, connections: 16) }
            result.ungated.append(rates["/health"]!)
            result.gated.append(rates["/status"]!)
            result.ratios.append(rates["/status"]! / rates["/health"]!)
        }
        return result
    }

    /// The server runs on the first core and wrk on the second when there are two or more (the
    /// measurement's own noise otherwise: wrk and the server's threads trading places on two cores
    /// moved a round's ratio between 0.62 and 1.04); each then measures the server's own time a
    /// request.
    static let serverCore = 0
    static let loadCore = 1

    /// wrk's requests per second over non-2xx answers excluded (a gated route that refused would
    /// look fast): 0 when any answer was not 2xx.
    static func wrk(_ url: String, seconds: Int, connections: Int) -> Double {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/wrk")
        process.arguments = [
            "-t1", "-c\(connections)", "-d\(seconds)s", "-H", "X-Remote-User: root", url,
        ]
        CorePlacement.start(process, on: loadCore)
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try! process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        if output.contains("Non-2xx or 3xx responses") || output.contains("Socket errors") { return 0 }
        guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix("Requests/sec:") }),
            let rate = Double(line.split(separator: " ").last ?? "")
        else { return 0 }
        return rate
    }
}
