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
    .timeLimit(.minutes(1)))
struct CapctlAuditTests {
    private func tree() throws -> PolicyTree {
        let tree = try PolicyTree()
        try tree.matrixService("audit-test")
        try tree.write(
            "etc/policy.yaml",
            """
            capabilities:
              tmp: { kind: file, path: /tmp }
              missing: { kind: file, path: "/nonexistent/\\e[2J" }
              admin: { kind: pam, service: audit-test, user: alice, service-directory: \(tree.root)/pam }
              is-root: { kind: user, user: root }
            gates:
              open: { require: tmp }
              shut: { require: { not: tmp } }
              unknown: { require: missing }
              root: { require: is-root }
            """)
        return tree
    }

    private func capctl(
        _ tree: PolicyTree, _ arguments: [String], _ receiver: SyslogReceiver, level: String = "all", input: String = ""
    )
        throws -> CapctlRun
    {
        try tree.run(
            [PolicyTree.capctl] + arguments,
            extraEnvironment: ["CAPCTL_AUDIT_SOCKET": receiver.socketPath, "CAPCTL_AUDIT": level], input: input)
    }

    @Test("authorized, denied, undecided and dismissed decisions, and runs, read back from the receiver")
    func recordsReadBack() async throws {
        let receiver = try SyslogReceiver()
        let tree = try tree()
        #expect(try capctl(tree, ["run", "open", "--", "/bin/true"], receiver).status == 0)
        let ran = try #require(await receiver.nextRecord())
        #expect(ran.hasPrefix("authpriv.notice capctl: "), "\(ran)")
        for field in [
            #"CAPCTL_ACTION="run""#, #"CAPCTL_GATE="open""#, #"CAPCTL_OUTCOME="authorized""#,
            #"CAPCTL_COMMAND="/bin/true""#, #"CAPCTL_UID="0""#, "CAPCTL_POLICY=\"\(tree.admin)/policy.yaml\"",
        ] {
            #expect(ran.contains(field), "\(field) in \(ran)")
        }
        #expect(try capctl(tree, ["run", "shut", "--", "/bin/true"], receiver).status == 77)
        let refused = try #require(await receiver.nextRecord())
        #expect(refused.hasPrefix("authpriv.warning capctl: "), "\(refused)")
        #expect(refused.contains(#"CAPCTL_OUTCOME="denied""#) && refused.contains("CAPCTL_REASONS="), "\(refused)")
        // For another subject: undecided, with the subject and the reasons, control characters escaped.
        #expect(try capctl(tree, ["check", "unknown", "--for-user", "nobody"], receiver).status == 1)
        let undecided = try #require(await receiver.nextRecord())
        #expect(undecided.contains(#"CAPCTL_OUTCOME="undecided""#), "\(undecided)")
        #expect(
            undecided.contains(#"CAPCTL_USER="nobody""#) && undecided.contains(#"CAPCTL_UID="65534""#), "\(undecided)")
        #expect(undecided.contains(#"/nonexistent/\x1b[2J"#), "\(undecided)")
        #expect(try capctl(tree, ["check", "root", "--for-user", "nobody"], receiver).status == 1)
        #expect(try #require(await receiver.nextRecord()).contains(#"CAPCTL_OUTCOME="denied""#))
        // An authorization: the password is never recorded; a dismissed prompt is dismissed.
        let wrong = try capctl(tree, ["authorize", "admin", "--password-stdin"], receiver, input: "hunter2-secret\n")
        #expect(wrong.status == 1)
        let denied = try #require(await receiver.nextRecord())
        #expect(
            denied.contains(#"CAPCTL_ACTION="authorize""#) && denied.contains(#"CAPCTL_OUTCOME="denied""#), "\(denied)")
        #expect(!denied.contains("hunter2"))
        #expect(try capctl(tree, ["authorize", "admin", "--password-stdin"], receiver, input: "").status == 3)
        #expect(try #require(await receiver.nextRecord()).contains(#"CAPCTL_OUTCOME="dismissed""#))
    }

    @Test("levels: off records nothing, denials only what did not hold; a missing log changes no decision")
    func levels() async throws {
        let receiver = try SyslogReceiver()
        let tree = try tree()
        #expect(try capctl(tree, ["run", "open", "--", "/bin/true"], receiver, level: "off").status == 0)
        #expect(try capctl(tree, ["run", "shut", "--", "/bin/true"], receiver, level: "off").status == 77)
        #expect(try capctl(tree, ["run", "open", "--", "/bin/true"], receiver, level: "denials").status == 0)
        #expect(try capctl(tree, ["check", "root", "--for-user", "nobody"], receiver, level: "denials").status == 1)
        // The first record to arrive is the denial at level `denials`: nothing before it was sent.
        let first = try #require(await receiver.nextRecord())
        #expect(first.contains(#"CAPCTL_ACTION="check""#) && first.contains(#"CAPCTL_GATE="root""#), "\(first)")
        let noLog = try tree.run(
            [PolicyTree.capctl, "run", "open", "--", "/bin/sh", "-c", "exit 7"],
            extraEnvironment: ["CAPCTL_AUDIT_SOCKET": tree.root + "/no-such-socket"])
        #expect(noLog.status == 7)
    }
}
