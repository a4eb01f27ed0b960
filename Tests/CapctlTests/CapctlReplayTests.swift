import Foundation
import Glibc
import TestSupport
import Testing

/// `capctl replay` on the built binary: the records capctl wrote, as a real rsyslogd filed them and
/// as a real journald keeps them, decided again with the policy of the day and with an edited one.
@Suite(
    "capctl replay", .serialized,
    .enabled(if: SyslogReceiver.isAvailable && geteuid() == 0, "needs rsyslog and root (decides for nobody)"),
    .timeLimit(.minutes(2)))
struct CapctlReplayTests {
    static let policy = """
        capabilities:
          tmp: { kind: file, path: /tmp }
          missing: { kind: file, path: /nonexistent/x }
          is-root: { kind: user, user: root }
        gates:
          open: { require: tmp }
          either: { require: { any-of: [missing, tmp] } }
          both: { require: { all-of: [missing, tmp] } }
          root: { require: { all-of: [is-root, { not: missing }] } }
        """

    /// Decides each gate for nobody and for root, with the records sent to `receiver`; the lines it filed.
    static func decide(_ tree: PolicyTree, _ receiver: SyslogReceiver) async throws -> [String] {
        var lines: [String] = []
        for gate in ["open", "either", "both", "root"] {
            for user in ["nobody", "root"] {
                let run = try tree.run(
                    [PolicyTree.capctl, "check", "--for-user", user, gate],
                    extraEnvironment: ["CAPCTL_AUDIT_SOCKET": receiver.socketPath])
                #expect([0, 1].contains(run.status), "\(run.output)\(run.error)")
                lines.append(try #require(await receiver.nextRecord()))
            }
        }
        return lines
    }

    @Test("rsyslog's lines replay the same with the policy that decided; an edit shows what it changes, exit 1")
    func replaysSyslogLines() async throws {
        let receiver = try SyslogReceiver()
        let tree = try PolicyTree()
        try tree.write("etc/policy.yaml", Self.policy)
        let lines = try await Self.decide(tree, receiver)
        // Another program's line in the log is passed over.
        let log = try tree.write(
            "log/auth.log",
            (lines + ["authpriv.info sshd: Accepted publickey for alice"]).joined(separator: "\n") + "\n")
        let same = try tree.capctl(["replay", log])
        #expect(same.status == 0, "\(same.output)\(same.error)")
        #expect(
            same.output.contains(
                "8 decision(s) replayed: 8 the same, 0 not; 1 line(s) that are no gate decision passed over"),
            "\(same.output)")
        #expect(same.output.split(separator: "\n").filter { $0.contains(": same: ") }.count == 8, "\(same.output)")

        // The edit: both now any-of (holds where it was undecided), open now also needs is-root.
        let edited = try tree.write(
            "other/policy.yaml",
            Self.policy.replacingOccurrences(
                of: "both: { require: { all-of: [missing, tmp] } }",
                with: "both: { require: { any-of: [missing, tmp] } }"
            )
            .replacingOccurrences(of: "open: { require: tmp }", with: "open: { require: { all-of: [tmp, is-root] } }"))
        let changed = try tree.capctl(["replay", "--policy", edited, log])
        #expect(changed.status == 1, "\(changed.output)\(changed.error)")
        #expect(changed.output.contains("gate both: different: recorded undecided, now holds"), "\(changed.output)")
        // open never read is-root: whether it holds now depends on what the record lacks.
        #expect(changed.output.contains("gate open: could differ: recorded holds, now one of"), "\(changed.output)")
        #expect(changed.output.contains("depending on what the record has no status for: is-root"), "\(changed.output)")
        #expect(changed.output.contains("recorded with policy revision"), "\(changed.output)")

        let json = try tree.capctl(["replay", "--json", "--policy", edited, "-"], input: lines.joined(separator: "\n"))
        let object = try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any]
        #expect(object?["replayed"] as? Int == 8 && (object?["same"] as? Int ?? 8) < 8, "\(json.output)")
    }

    @Test("a record that cannot be read is said with its line, exit 64; a forged outcome in a value changes nothing")
    func unreadable() async throws {
        let receiver = try SyslogReceiver()
        let tree = try PolicyTree()
        try tree.write("etc/policy.yaml", Self.policy)
        var lines = try await Self.decide(tree, receiver)
        // Cut a record short, as a log that truncates would.
        lines[2] = String(lines[2].prefix(lines[2].count - 20))
        let log = try tree.write("log/cut.log", lines.joined(separator: "\n") + "\n")
        let run = try tree.capctl(["replay", log])
        #expect(run.status == 64, "\(run.output)\(run.error)")
        #expect(run.output.contains("unreadable: \(log):3: "), "\(run.output)")
        #expect(try tree.capctl(["replay", tree.root + "/no-such.log"]).status == 64)
    }
}

/// `capctl replay DECISION-ID` where journald runs: the id is looked up with journalctl.
@Suite(
    "capctl replay from the journal", .serialized,
    .enabled(if: JournalReceiver.isAvailable && geteuid() == 0, "needs systemd-journald and root (mount namespaces)"),
    .timeLimit(.minutes(2)))
struct CapctlJournalReplayTests {
    @Test("a decision id replays from the journal (journalctl's JSON entry, read back); an unknown id is said")
    func replaysFromJournal() throws {
        let journal = try JournalReceiver()
        let tree = try PolicyTree()
        try tree.write("etc/policy.yaml", CapctlReplayTests.policy)
        let check = try tree.run(
            journal.inside([PolicyTree.capctl, "check", "--for-user", "nobody", "both"]),
            extraEnvironment: [:])
        #expect(check.status == 1, "\(check.output)\(check.error)")
        let records = try journal.records(identifier: "capctl")
        let id = try #require(records.first?["CAPCTL_DECISION_ID"], "\(records)")
        #expect(records.first?["CAPCTL_STATUSES"] == #"{"missing":"unavailable","tmp":"authorized"}"#, "\(records)")
        let replay = try tree.run(journal.inside([PolicyTree.capctl, "replay", id]), extraEnvironment: [:])
        #expect(replay.status == 0, "\(replay.output)\(replay.error)")
        #expect(replay.output.contains("\(id) gate both: same: undecided"), "\(replay.output)")
        let unknown = try tree.run(
            journal.inside([PolicyTree.capctl, "replay", String(repeating: "0", count: 32)]), extraEnvironment: [:])
        #expect(unknown.status == 64 && unknown.output.contains("journalctl found no record"), "\(unknown.output)")
    }
}
