import CLinuxSupport
import Foundation
import Glibc
import TestSupport
import Testing

/// The audit trail read back from a real syslog receiver (rsyslogd) the test starts: a record for
/// every run, authorization and decision for another subject, with the outcome, the subject and
/// the reasons; never a secret; a log that is missing never changes a decision.
@Suite(
    "capctl audit trail", .serialized,
    .enabled(if: SyslogReceiver.isAvailable && PAMTestModules.matrix != nil, "needs rsyslog and libpam-wrapper"),
    .timeLimit(.minutes(2)))
struct CapctlAuditTests {
    private func tree(audit: String? = nil, missingPath: String = "/nonexistent/\\e[2J") throws -> PolicyTree {
        let tree = try PolicyTree()
        try tree.matrixService("audit-test")
        try writePolicy(tree, audit: audit, missingPath: missingPath)
        return tree
    }

    private func writePolicy(_ tree: PolicyTree, audit: String?, missingPath: String = "/nonexistent/\\e[2J") throws {
        try tree.write(
            "etc/policy.yaml",
            """
            \(audit.map { "audit: \($0)" } ?? "")
            capabilities:
              tmp: { kind: file, path: /tmp }
              missing: { kind: file, path: "\(missingPath)" }
              admin: { kind: pam, service: audit-test, user: alice, service-directory: \(tree.root)/pam }
              is-root: { kind: user, user: root }
            gates:
              open: { require: tmp }
              shut: { require: { not: tmp } }
              unknown: { require: missing }
              root: { require: is-root }
            """)
    }

    private func capctl(
        _ tree: PolicyTree, _ arguments: [String], _ receiver: SyslogReceiver, level: String? = nil, input: String = "",
        traceParent: String? = nil
    )
        throws -> CapctlRun
    {
        var environment = ["CAPCTL_AUDIT_SOCKET": receiver.socketPath]
        environment["CAPCTL_AUDIT"] = level
        environment["TRACEPARENT"] = traceParent
        return try tree.run([PolicyTree.capctl] + arguments, extraEnvironment: environment, input: input)
    }

    @Test("authorized, denied, undecided and dismissed decisions, and runs, read back from the receiver")
    func recordsReadBack() async throws {
        let receiver = try SyslogReceiver()
        let tree = try tree()
        #expect(try capctl(tree, ["run", "open", "--", "/bin/true"], receiver).status == 0)
        let ran = try #require(await receiver.nextRecord())
        #expect(ran.hasPrefix("authpriv.notice capctl: "), "\(ran)")
        for field in [
            #"CAPCTL_ACTION="run""#, #"CAPCTL_GATE="open""#, #"CAPCTL_OUTCOME="holds""#,
            #"CAPCTL_COMMAND="/bin/true""#, #"CAPCTL_UID="0""#, "CAPCTL_POLICY=\"\(tree.admin)/policy.yaml\"",
        ] {
            #expect(ran.contains(field), "\(field) in \(ran)")
        }
        #expect(try capctl(tree, ["run", "shut", "--", "/bin/true"], receiver).status == 77)
        let refused = try #require(await receiver.nextRecord())
        #expect(refused.hasPrefix("authpriv.warning capctl: "), "\(refused)")
        #expect(refused.contains(#"CAPCTL_OUTCOME="fails""#) && refused.contains("CAPCTL_REASONS="), "\(refused)")
        // For another subject: undecided, with the subject and the reasons, control characters escaped.
        #expect(try capctl(tree, ["check", "unknown", "--for-user", "nobody"], receiver).status == 1)
        let undecided = try #require(await receiver.nextRecord())
        #expect(undecided.contains(#"CAPCTL_OUTCOME="undecided""#), "\(undecided)")
        #expect(
            undecided.contains(#"CAPCTL_USER="nobody""#) && undecided.contains(#"CAPCTL_UID="65534""#), "\(undecided)")
        #expect(undecided.contains(#"/nonexistent/\x1b[2J"#), "\(undecided)")
        #expect(try capctl(tree, ["check", "root", "--for-user", "nobody"], receiver).status == 1)
        #expect(try #require(await receiver.nextRecord()).contains(#"CAPCTL_OUTCOME="fails""#))
        // An authorization: the password is never recorded; a dismissed prompt is dismissed.
        let wrong = try capctl(tree, ["authorize", "admin", "--password-stdin"], receiver, input: "hunter2-secret\n")
        #expect(wrong.status == 1)
        let denied = try #require(await receiver.nextRecord())
        #expect(
            denied.contains(#"CAPCTL_ACTION="authorize""#) && denied.contains(#"CAPCTL_OUTCOME="fails""#), "\(denied)")
        #expect(!denied.contains("hunter2"))
        #expect(try capctl(tree, ["authorize", "admin", "--password-stdin"], receiver, input: "").status == 3)
        #expect(try #require(await receiver.nextRecord()).contains(#"CAPCTL_OUTCOME="dismissed""#))
    }

    @Test("a decision in a trace (the environment's TRACEPARENT) names it; a malformed one is ignored")
    func traceParent() async throws {
        let receiver = try SyslogReceiver()
        let tree = try tree()
        let traced = try capctl(
            tree, ["run", "open", "--", "/bin/true"], receiver,
            traceParent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
        #expect(traced.status == 0, "\(traced.error)")
        let record = try #require(await receiver.nextRecord())
        #expect(record.contains(#"CAPCTL_TRACE_ID="4bf92f3577b34da6a3ce929d0e0e4736""#), "\(record)")
        let malformed = try capctl(tree, ["run", "open", "--", "/bin/true"], receiver, traceParent: "00-not-a-trace")
        #expect(malformed.status == 0, "\(malformed.error)")
        let plain = try #require(await receiver.nextRecord())
        #expect(!plain.contains("CAPCTL_TRACE_ID"), "\(plain)")
    }

    @Test("levels: the policy's audit: decides, the environment may ask for more, never less")
    func levels() async throws {
        let receiver = try SyslogReceiver()
        let tree = try tree(audit: "off")
        #expect(try capctl(tree, ["run", "open", "--", "/bin/true"], receiver).status == 0)
        #expect(try capctl(tree, ["run", "shut", "--", "/bin/true"], receiver).status == 77)
        try writePolicy(tree, audit: "denials")
        #expect(try capctl(tree, ["run", "open", "--", "/bin/true"], receiver).status == 0)
        #expect(try capctl(tree, ["check", "root", "--for-user", "nobody"], receiver).status == 1)
        #expect(try capctl(tree, ["run", "shut", "--", "/bin/true"], receiver, level: "off").status == 77)
        try writePolicy(tree, audit: "off")
        #expect(try capctl(tree, ["run", "open", "--", "/bin/true"], receiver, level: "all").status == 0)
        // Records arrive in order: nothing was sent before the denial at `denials`; the
        // environment's `off` did not lower it; its `all` raised `off`.
        let first = try #require(await receiver.nextRecord())
        #expect(first.contains(#"CAPCTL_ACTION="check""#) && first.contains(#"CAPCTL_GATE="root""#), "\(first)")
        let second = try #require(await receiver.nextRecord())
        #expect(second.contains(#"CAPCTL_GATE="shut""#) && second.contains(#"CAPCTL_OUTCOME="fails""#), "\(second)")
        let third = try #require(await receiver.nextRecord())
        #expect(third.contains(#"CAPCTL_GATE="open""#) && third.contains(#"CAPCTL_OUTCOME="holds""#), "\(third)")
        // A level the environment misspells records everything, and says so.
        let misspelt = try capctl(tree, ["run", "open", "--", "/bin/true"], receiver, level: "none")
        #expect(misspelt.status == 0 && misspelt.error.contains("CAPCTL_AUDIT: unknown level"), "\(misspelt.error)")
        #expect(try #require(await receiver.nextRecord()).contains(#"CAPCTL_GATE="open""#))
        let noLog = try tree.run(
            [PolicyTree.capctl, "run", "open", "--", "/bin/sh", "-c", "exit 7"],
            extraEnvironment: ["CAPCTL_AUDIT_SOCKET": tree.root + "/no-such-socket"])
        #expect(noLog.status == 7)
    }

    /// A receiver that stopped reading: its queue full, a blocking send waited for ever and
    /// `capctl run` hung until killed. Sending waits a bounded time, then the record is counted as
    /// not delivered and said so; the decision and the command are unchanged.
    @Test("a full log never holds a gate: the record is not delivered, said so, and the command runs")
    func fullLog() throws {
        let tree = try tree()
        let path = tree.root + "/stuck-log"
        let receiver = clinux_unix_socket(path, Int32(SOCK_DGRAM.rawValue), CLINUX_UNIX_BIND)
        #expect(receiver >= 0)
        defer { close(receiver) }
        // Fill its queue from a socket of the test's own, without waiting.
        let filler = clinux_unix_socket(path, Int32(SOCK_DGRAM.rawValue), CLINUX_UNIX_CONNECT)
        #expect(filler >= 0)
        defer { close(filler) }
        let datagram = [UInt8](repeating: 0x61, count: 512)
        var queued = 0
        while datagram.withUnsafeBytes({ send(filler, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }) > 0 {
            queued += 1
        }
        #expect(errno == EAGAIN && queued > 0, "the receiver's queue is full after \(queued) datagrams")
        let ran = try tree.run(
            [PolicyTree.capctl, "run", "open", "--", "/bin/sh", "-c", "exit 7"],
            extraEnvironment: ["CAPCTL_AUDIT_SOCKET": path])
        #expect(ran.status == 7, "\(ran.output)\(ran.error)")
        #expect(ran.error.contains("could not be delivered to \(path) (missing, or full)"), "\(ran.error)")
    }

    @Test("validate: a bad audit level is an error at its position; a later file's setting is noted")
    func validateAuditSetting() throws {
        let tree = try tree(audit: "denial")
        let bad = try tree.capctl(["validate"])
        #expect(bad.status != 0)
        #expect(
            bad.output.contains("policy.yaml:1:8:") && bad.output.contains("unknown audit level")
                && bad.output.contains(#"did you mean "denials"?"#), "\(bad.output)")
        try writePolicy(tree, audit: "[all]")
        #expect(try tree.capctl(["validate"]).output.contains("\"audit\" must be one of"))
        try writePolicy(tree, audit: "all")
        try tree.write("etc/policy.d/quiet.yaml", "audit: denials\n")
        let layered = try tree.capctl(["validate"])
        #expect(layered.status == 0, "\(layered.error)")
        #expect(layered.output.contains(#"setting "audit" replaces the one at"#), "\(layered.output)")
    }
}

/// The audit trail read back from a real systemd-journald the test starts in a mount namespace
/// of its own, where it is the system's journal: each part of a record is a journal field.
@Suite(
    "capctl audit trail in the journal", .serialized,
    .enabled(
        if: JournalReceiver.isAvailable && PAMTestModules.matrix != nil && geteuid() == 0,
        "needs systemd-journald, libpam-wrapper and root (mount namespaces)"),
    .timeLimit(.minutes(2)))
struct CapctlJournalAuditTests {
    /// Under a final system policy with `audit:`, an unprivileged caller's CAPCTL_AUDIT_SOCKET sent
    /// the records only to the caller's socket: what the administrator asked to record never
    /// reached the system log. It always does now; the socket gets a copy.
    @Test("under a final system policy, CAPCTL_AUDIT_SOCKET cannot take the records away from the system log")
    func finalPolicyKeepsTheSystemLog() async throws {
        let journal = try JournalReceiver()
        let receiver = try SyslogReceiver()
        let tree = try PolicyTree()
        try tree.write(
            "etc/policy.yaml",
            """
            final: true
            audit: all
            capabilities:
              tmp: { kind: file, path: /tmp }
            gates:
              open: { require: tmp }
            """)
        let run = try tree.run(
            journal.inside([PolicyTree.capctl, "run", "open", "--", "/bin/true"]),
            extraEnvironment: ["CAPCTL_AUDIT_SOCKET": receiver.socketPath])
        #expect(run.status == 0, "\(run.output)\(run.error)")
        let records = try journal.records(identifier: "capctl")
        #expect(records.count == 1 && records.first?["CAPCTL_GATE"] == "open", "\(records)")
        let copy = try #require(await receiver.nextRecord())
        #expect(copy.contains(#"CAPCTL_GATE="open""#), "\(copy)")
    }

    @Test("records go to the journal when it runs, as fields; no value can forge a field")
    func journalFields() throws {
        let journal = try JournalReceiver()
        let tree = try PolicyTree()
        try tree.write(
            "etc/policy.yaml",
            """
            capabilities:
              tmp: { kind: file, path: /tmp }
              forged: { kind: file, path: /nonexistent/x }
            gates:
              open: { require: tmp }
              forged: { require: forged }
            """)
        let run = try tree.run(
            journal.inside([PolicyTree.capctl, "run", "open", "--", "/bin/true"]), extraEnvironment: [:])
        #expect(run.status == 0, "\(run.error)")
        // A policy cannot hold a line break in a path any more; a command's argument still can.
        let check = try tree.run(
            journal.inside([
                PolicyTree.capctl, "run", "--as-user", "nobody", "forged", "--", "/bin/echo",
                "x\nCAPCTL_OUTCOME=authorized",
            ]), extraEnvironment: [:])
        #expect(check.status == 77, "\(check.output)\(check.error)")
        let records = try journal.records(identifier: "capctl")
        try #require(records.count == 2, "\(records)")
        let ran = records[0]
        #expect(ran["CAPCTL_ACTION"] == "run" && ran["CAPCTL_GATE"] == "open" && ran["CAPCTL_OUTCOME"] == "holds")
        #expect(ran["CAPCTL_COMMAND"] == "/bin/true" && ran["CAPCTL_UID"] == "0")
        #expect(ran["PRIORITY"] == "5" && ran["SYSLOG_FACILITY"] == "10")
        #expect(ran["_TRANSPORT"] == "journal", "sent through sd_journal_sendv, not syslog")
        #expect(ran["MESSAGE_ID"] == "4f1c7a9e2b6d4c38a5e0d9b7c3f18a26")
        #expect(ran["MESSAGE"]?.contains(#"CAPCTL_GATE="open""#) == true)
        let undecided = records[1]
        #expect(undecided["CAPCTL_OUTCOME"] == "undecided" && undecided["PRIORITY"] == "4", "\(undecided)")
        #expect(undecided["CAPCTL_USER"] == "nobody")
        #expect(undecided["CAPCTL_COMMAND"]?.contains("x\nCAPCTL_OUTCOME=authorized") == true, "\(undecided)")
    }

    /// libsystemd's sd_journal_sendv reports success when no journal runs (it ignores ENOENT), so
    /// on a host with libsystemd, no journald and no /dev/log every record was dropped unseen.
    @Test("no journal and no system log: capctl says the record could not be delivered, and the command runs")
    func noLogAtAll() throws {
        let tree = try PolicyTree()
        try tree.write(
            "etc/policy.yaml",
            """
            capabilities:
              tmp: { kind: file, path: /tmp }
            gates:
              open: { require: tmp }
            """)
        // A private /run (no journal socket) and, where the machine has one, /dev/log covered.
        let setup = """
            mount -t tmpfs tmpfs /run && { [ ! -e /dev/log ] || mount --bind /dev/null /dev/log; } && exec "$@"
            """
        let run = try tree.run(
            [
                "/usr/bin/unshare", "--mount", "--propagation", "private", "/bin/sh", "-c", setup, "sh",
                PolicyTree.capctl, "run", "open", "--", "/bin/sh", "-c", "exit 7",
            ],
            extraEnvironment: [:])
        #expect(run.status == 7, "\(run.output)\(run.error)")
        #expect(
            run.error.contains("could not be delivered to the journal or the system log (/dev/log)"), "\(run.error)")
    }
}
