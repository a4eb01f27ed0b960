import Foundation
import Glibc
import TestSupport
import Testing

/// Users and groups as the databases answer, through the built binary as uid 65534: a group
/// entry larger than any fixed buffer, and a database that cannot answer. The test's own
/// /etc/group and /etc/nsswitch.conf are bound over the machine's in a mount namespace of the
/// command's own, so no machine file is touched.
@Suite(
    "capctl and the account databases",
    .enabled(if: geteuid() == 0, "needs root for a mount namespace"), .timeLimit(.minutes(2)))
struct CapctlIdentityTests {
    static let policy = """
        flags:
          inline:
            flags:
              big-allowed:
                state: ENABLED
                variants: { "yes": true, "no": false }
                defaultVariant: "yes"
                targeting: { "if": [ { "in": [ "biggroup", { "var": "groups" } ] }, "no", "yes" ] }
        capabilities:
          allowed: { kind: flag, flag: big-allowed }
        gates:
          not-in-biggroup: { require: allowed }
        """

    /// capctl as uid 65534 with supplementary group 4242, seeing `groupFile` as /etc/group
    /// (and `nsswitch` as /etc/nsswitch.conf, when given).
    private func capctl(
        _ tree: PolicyTree, _ arguments: [String], groupFile: String, nsswitch: String? = nil
    ) throws -> CapctlRun {
        let script = """
            set -e
            mount --bind "$1" /etc/group
            [ -z "$2" ] || mount --bind "$2" /etc/nsswitch.conf
            shift 2
            exec /usr/bin/setpriv --reuid=65534 --regid=65534 --groups=4242 "$@"
            """
        return try tree.run(
            [
                "/usr/bin/unshare", "--mount", "--propagation", "private", "/bin/sh", "-c", script, "sh", groupFile,
                nsswitch ?? "", PolicyTree.sharedCapctl,
            ] + arguments, extraEnvironment: [:])
    }

    private func groupFile(_ tree: PolicyTree, extra: String, mode: mode_t = 0o644) throws -> String {
        let machine = try String(contentsOfFile: "/etc/group", encoding: .utf8)
        let path = try tree.write("databases/group", machine + extra + "\n")
        chmod(path, mode)
        return path
    }

    @Test("a member of a group whose entry is over 64 KiB is seen as a member: the rule denying it holds")
    func largeGroup() throws {
        let tree = try PolicyTree()
        try tree.write("etc/policy.yaml", Self.policy)
        // 8,001 members: far past the 16 KiB buffer the host context used, and glibc's ERANGE.
        let members = (0...8_000).map { String(format: "member%05d", $0) }.joined(separator: ",")
        let file = try groupFile(tree, extra: "biggroup:x:4242:" + members)
        let check = try capctl(tree, ["check", "not-in-biggroup"], groupFile: file)
        #expect(check.status == 1, "\(check.output)\(check.error)")
        #expect(check.output.contains("not-in-biggroup: fails"), "\(check.output)")
        let get = try capctl(tree, ["flags", "get", "big-allowed"], groupFile: file)
        #expect(get.output.contains("false"), "\(get.output)")
    }

    @Test("run --as-user takes a user whose entry is over 64 KiB, as any other")
    func largeUserEntry() throws {
        let tree = try PolicyTree()
        try tree.write(
            "etc/policy.yaml", "capabilities:\n  tmp: { kind: file, path: /tmp }\ngates:\n  open: { require: tmp }\n")
        let machine = try String(contentsOfFile: "/etc/passwd", encoding: .utf8)
        let gecos = String(repeating: "g", count: 70_000)
        let passwd = try tree.write("databases/passwd", machine + "biguser:x:4343:4343:\(gecos):/tmp:/bin/sh\n")
        chmod(passwd, 0o644)
        let script = """
            set -e
            mount --bind "$1" /etc/passwd
            shift
            exec "$@"
            """
        let run = try tree.run(
            [
                "/usr/bin/unshare", "--mount", "--propagation", "private", "/bin/sh", "-c", script, "sh", passwd,
                PolicyTree.sharedCapctl, "run", "--as-user", "biguser", "open", "--", "/usr/bin/id", "-u",
            ], extraEnvironment: [:])
        #expect(run.status == 0, "\(run.output)\(run.error)")
        #expect(run.output.trimmingCharacters(in: .whitespacesAndNewlines) == "4343", "\(run.output)")
    }

    @Test(
        "a group database that cannot answer makes rules reading groups an error, and group capabilities undecided, not load errors"
    )
    func databaseFailure() throws {
        let tree = try PolicyTree()
        try tree.write("etc/policy.yaml", Self.policy + "\n  in-testgrp: { require: testgrp }\n")
        try tree.write("etc/policy.d/groups.yaml", "capabilities:\n  testgrp: { kind: group, group: testgrp }\n")
        // Only `files`, and a group file uid 65534 cannot read: glibc returns EACCES, not "not found".
        let file = try groupFile(tree, extra: "testgrp:x:4242:", mode: 0o600)
        let nsswitch = try tree.write("databases/nsswitch.conf", "passwd: files\ngroup: files\n")
        let check = try capctl(tree, ["check", "not-in-biggroup"], groupFile: file, nsswitch: nsswitch)
        #expect(check.status == 1, "\(check.output)\(check.error)")
        #expect(check.output.contains("not-in-biggroup: undecided"), "\(check.output)")
        #expect(check.output.contains("context attribute \"groups\", which is incomplete"), "\(check.output)")
        let group = try capctl(tree, ["status", "testgrp"], groupFile: file, nsswitch: nsswitch)
        #expect(group.status == 1, "\(group.output)\(group.error)")
        #expect(group.output.contains("unavailable"), "\(group.output)")
        #expect(group.output.contains("cannot resolve testgrp"), "\(group.output)")
        // When the database answers, an unknown group is still a load error.
        try tree.write(
            "etc/policy.d/groups.yaml", "capabilities:\n  testgrp: { kind: group, group: no-such-group-xyz }\n")
        let unknown = try capctl(tree, ["validate"], groupFile: try groupFile(tree, extra: ""), nsswitch: nsswitch)
        #expect(unknown.status == 78, "\(unknown.output)")
        #expect(unknown.output.contains("unknown group \"no-such-group-xyz\""), "\(unknown.output)")
    }
}
