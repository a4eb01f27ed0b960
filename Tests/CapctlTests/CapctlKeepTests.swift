import Foundation
import Glibc
import TestSupport
import Testing

/// `keep:` across processes, as sudo's timestamp records: `capctl authorize` in one process,
/// `capctl check --non-interactive` in the next, through the built binary, with the boot id and the
/// clock pointed at test doubles.
@Suite(
    "capctl keeps logins across processes", .serialized,
    .enabled(if: PAMTestModules.matrix != nil && geteuid() == 0, "needs libpam-wrapper, and root for the records"),
    .timeLimit(.minutes(2)))
struct CapctlKeepTests {
    private func tree(keep: String = "5m") throws -> (PolicyTree, bootID: String) {
        let tree = try PolicyTree()
        try tree.matrixService("keep-test")
        try writePolicy(tree, keep: keep)
        let bootID = try tree.write("boot_id", "6f2d6e3a-0000-4000-8000-000000000001\n")
        return (tree, bootID)
    }

    private func writePolicy(_ tree: PolicyTree, keep: String) throws {
        try tree.write(
            "etc/policy.yaml",
            """
            capabilities:
              admin: { kind: pam, service: keep-test, user: alice, service-directory: \(tree.root)/pam, keep: \(keep) }
            gates:
              export: { require: admin }
            """)
    }

    private func capctl(
        _ tree: PolicyTree, _ arguments: [String], bootID: String, offset: Int = 0, input: String = "",
        newSession: Bool = false
    ) throws -> CapctlRun {
        try tree.run(
            (newSession ? ["/usr/bin/setsid", "--wait"] : []) + [PolicyTree.capctl] + arguments,
            extraEnvironment: ["CAPCTL_KEEP_BOOT_ID": bootID, "CAPCTL_KEEP_CLOCK_OFFSET": String(offset)], input: input)
    }

    @Test("kept for the same user, terminal and session, for as long as keep says, on this boot, under this policy")
    func keptAcrossProcesses() throws {
        let (tree, bootID) = try tree()
        func check(offset: Int = 0, newSession: Bool = false) throws -> Int32 {
            try capctl(
                tree, ["check", "export", "--non-interactive"], bootID: bootID, offset: offset, newSession: newSession
            )
            .status
        }
        #expect(try check() == 2, "nothing kept yet")
        let authorized = try capctl(
            tree, ["authorize", "admin", "--password-stdin"], bootID: bootID, input: "secret\n")
        #expect(authorized.status == 0, "\(authorized.output)\(authorized.error)")
        let kept = try capctl(tree, ["check", "export", "--non-interactive", "--explain"], bootID: bootID)
        #expect(kept.status == 0, "\(kept.output)")
        #expect(kept.output.contains("kept from an earlier login"), "\(kept.output)")
        #expect(try check(offset: 290) == 0)
        #expect(try check(offset: 301) == 2, "past keep")
        #expect(try check(offset: -60) == 2, "a record from the future is void")
        #expect(try check(newSession: true) == 2, "another session")
        try tree.write("boot_id", "6f2d6e3a-0000-4000-8000-000000000002\n")
        #expect(try check() == 2, "another boot")
        try tree.write("boot_id", "6f2d6e3a-0000-4000-8000-000000000001\n")
        #expect(try check() == 0)
        try writePolicy(tree, keep: "6m")
        #expect(try check() == 2, "changed capability settings void the record")
        try writePolicy(tree, keep: "5m")
        #expect(try check() == 0)
        let forgot = try capctl(tree, ["authorize", "--forget"], bootID: bootID)
        #expect(forgot.output.contains("forgot 1 kept login(s)"), "\(forgot.output)")
        #expect(try check() == 2, "after --forget")
    }

    @Test("a record planted by uid 65534, or in a directory others may write, is never read")
    func plantedRecords() throws {
        let (tree, bootID) = try tree()
        func check() throws -> Int32 {
            try capctl(tree, ["check", "export", "--non-interactive"], bootID: bootID).status
        }
        #expect(
            try capctl(tree, ["authorize", "admin", "--password-stdin"], bootID: bootID, input: "secret\n").status == 0)
        #expect(try check() == 0)
        let records = try FileManager.default.contentsOfDirectory(atPath: tree.root + "/keep")
        #expect(records.count == 1)
        let record = tree.root + "/keep/" + records[0]
        // The same content, owned by uid 65534: as if it had planted it.
        #expect(chown(record, 65534, 65534) == 0)
        #expect(try check() == 2)
        #expect(chown(record, 0, 0) == 0)
        #expect(try check() == 0)
        chmod(tree.root + "/keep", 0o777)
        #expect(try check() == 2)
        chmod(tree.root + "/keep", 0o700)
        #expect(try check() == 0)
    }

    @Test("without a terminal the session is the scope: its other processes reuse the login, another session asks")
    func sessionScopeWithoutTerminal() throws {
        let (tree, bootID) = try tree()
        // One session of its own, no terminal (setsid), as under cron or `ssh host 'a && b'`.
        let both = try tree.run(
            [
                "/usr/bin/setsid", "--wait", "/bin/sh", "-c",
                "\"$0\" authorize admin --password-stdin && \"$0\" check export --non-interactive; exit $?",
                PolicyTree.capctl,
            ], extraEnvironment: ["CAPCTL_KEEP_BOOT_ID": bootID], input: "secret\n")
        #expect(both.status == 0, "\(both.output)\(both.error)")
        let otherSession = try capctl(tree, ["check", "export", "--non-interactive"], bootID: bootID, newSession: true)
        #expect(otherSession.status == 2, "\(otherSession.output)")
    }

    @Test("a session leader in another PID namespace: kept for the parent process, or not kept and said so")
    func sessionLeaderOutOfSight() throws {
        let (tree, bootID) = try tree()
        let namespace = ["/usr/bin/unshare", "--pid", "--fork", "--mount-proc"]
        // One shell in a new PID namespace runs both: the session leader is out of sight, the
        // parent (the shell) is the same for both.
        let both = try tree.run(
            namespace + [
                "/bin/sh", "-c",
                "\"$0\" authorize admin --password-stdin && \"$0\" check export --non-interactive --explain; exit $?",
                PolicyTree.capctl,
            ],
            extraEnvironment: ["CAPCTL_KEEP_BOOT_ID": bootID], input: "secret\n")
        #expect(both.status == 0, "\(both.output)\(both.error)")
        #expect(both.output.contains("kept from an earlier login"), "\(both.output)")
        // capctl as the namespace's first process sees neither its session leader nor a parent.
        let alone = try tree.run(
            namespace + [PolicyTree.capctl, "authorize", "admin", "--password-stdin"],
            extraEnvironment: ["CAPCTL_KEEP_BOOT_ID": bootID], input: "secret\n")
        #expect(alone.status == 0, "\(alone.output)\(alone.error)")
        #expect(alone.output.contains("not kept across processes"), "\(alone.output)\(alone.error)")
    }
}
