import DecisionService
import Foundation
import Glibc
import LinuxPolicy
import TestSupport
import Testing

/// capctld answers a connection's `Check` again only while nothing the decision followed from can
/// have changed. Each daemon here reuses for 60 s, so an answer that changes within a test changed
/// because the reuse ended, not because it aged out.
@Suite(
    "capctld: a Check answered again on its connection", .serialized,
    .enabled(if: geteuid() == 0, "needs root to run clients as uid 65534"), .timeLimit(.minutes(2)))
struct ReusedCheckTests {
    @Test("a flag's change decides the connection's next Check anew, at once")
    func flagChange() async throws {
        let flags = try TemporaryDirectory(prefix: "capctld-reuse-flags")
        chmod(flags.path, 0o755)
        let file = try flags.write(CapctldTests.flagFile("f", on: false), to: "flags.json")
        let daemon = try await CapctldTests.Daemon(
            policy: "flags: { files: [\(file)] }\ngates:\n  flagged: { require: { flag: f } }\n",
            arguments: ["--reuse-for", "60"])
        let client = try DecisionClient(path: daemon.socket)
        #expect(try client.check("flagged").outcome == .fails)
        #expect(try client.check("flagged").outcome == .fails)
        // The watch hears the change once capctld's flags have it: the next Check must too.
        let watcher = try CapctldTests.watcher(daemon, "flagged", count: 2)
        defer { watcher.stop() }
        let initial = await watcher.nextLine() ?? ""
        #expect(initial.contains(#""outcome": "fails""#), "\(initial)")
        try CapctldTests.flagFile("f", on: true).write(toFile: file, atomically: true, encoding: .utf8)
        let changed = await watcher.nextLine() ?? ""
        #expect(changed.contains(#""outcome": "holds""#), "\(changed)")
        #expect(try client.check("flagged").outcome == .holds)
    }

    @Test("a policy read again decides the connection's next Check anew, at once")
    func policyChange() async throws {
        let daemon = try await CapctldTests.Daemon(arguments: ["--reuse-for", "60"])
        let client = try DecisionClient(path: daemon.socket)
        #expect(try client.check("root-only").outcome == .holds)
        #expect(try client.check("root-only").outcome == .holds)
        try daemon.rewritePolicy(
            CapctldTests.capabilities + "gates:\n  root-only: { require: { not: is-root } }\n")
        #expect(await daemon.process.waitForOutput(containing: "policy loaded: 1 gate(s)"))
        #expect(try client.check("root-only").outcome == .fails)
    }

    @Test("a gate that reads a file is decided on every call: the file made opens it at once")
    func fileGate() async throws {
        let directory = try TemporaryDirectory(prefix: "capctld-reuse-file")
        chmod(directory.path, 0o755)
        let marker = directory.path + "/ready"
        let daemon = try await CapctldTests.Daemon(
            policy: """
                capabilities:
                  marker: { kind: file, path: \(marker), access: [read] }
                  is-root: { kind: user, user: root }
                gates:
                  ready: { require: { all-of: [is-root, marker] } }
                """, arguments: ["--reuse-for", "60"])
        let client = try DecisionClient(path: daemon.socket)
        for _ in 0..<2 {
            let missing = try client.check("ready")
            #expect(missing.outcome == .undecided, "\(missing)")
        }
        _ = try directory.write("", to: "ready", mode: 0o644)
        #expect(try client.check("ready").outcome == .holds)
    }

    @Test(
        "each answer given again is a decision of its own in the audit trail",
        .enabled(if: SyslogReceiver.isAvailable, "needs rsyslogd"))
    func recordedEachTime() async throws {
        let audit = try SyslogReceiver()
        let daemon = try await CapctldTests.Daemon(arguments: ["--reuse-for", "60"], audit: audit)
        let client = try DecisionClient(path: daemon.socket)
        var ids: Set<String> = []
        for _ in 0..<3 {
            #expect(try client.check("root-only").outcome == .holds)
            let line = try #require(await audit.nextRecord())
            let record = try RecordedDecision(reading: line)
            #expect(record.gate == "root-only" && record.outcome == .holds, "\(line)")
            ids.insert(record.decisionID)
        }
        #expect(ids.count == 3)
    }

    @Test("capctld refuses a reuse longer than a minute, or negative")
    func reuseBounds() throws {
        for value in ["61", "-1", "x"] {
            let run = try runProcess(
                builtProduct("capctld"), ["--reuse-for", value, "--listen", "/nonexistent/capctld.sock"])
            #expect(run.status == 64, "\(value): \(run.standardError)")
            #expect(run.standardError.contains("reuse-for"), "\(value): \(run.standardError)")
        }
    }
}
