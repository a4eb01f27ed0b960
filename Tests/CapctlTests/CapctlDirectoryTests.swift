import Foundation
import Glibc
import TestSupport
import Testing

/// PAM and group gates for users of a real directory: slapd serving the users, sssd serving them
/// to the host (``DirectoryFixture``), capctl run in the fixture's mount namespace.
@Suite(
    "capctl with a directory (slapd and sssd)",
    .enabled(if: DirectoryFixture.isAvailable, "needs root, slapd, sssd-ldap, libpam-sss and libnss-sss"),
    .timeLimit(.minutes(2)))
struct CapctlDirectoryTests {
    static let policy = """
        flags:
          inline:
            flags:
              outside-dirbig:
                state: ENABLED
                variants: { "yes": true, "no": false }
                defaultVariant: "yes"
                targeting: { "if": [ { "in": [ "dirbig", { "var": "groups" } ] }, "no", "yes" ] }
        capabilities:
          staff: { kind: pam, service: directory, user: dirstaff, service-directory: SERVICES }
          guest: { kind: pam, service: directory, user: dirguest, service-directory: SERVICES }
          cold: { kind: pam, service: directory, user: dircold, service-directory: SERVICES }
          users: { kind: group, group: dirusers }
          big: { kind: group, group: dirbig }
          outside-big: { kind: flag, flag: outside-dirbig }
        gates:
          as-staff: { require: staff }
          as-guest: { require: guest }
          not-in-dirbig: { require: outside-big }
        """

    /// A policy tree whose PAM service `directory` is pam_sss for both stages.
    private func tree() throws -> PolicyTree {
        let tree = try PolicyTree()
        let module = try #require(DirectoryFixture.pamModule)
        try tree.write("pam/directory", "auth required \(module)\naccount required \(module)\n")
        try tree.write("etc/policy.yaml", Self.policy.replacingOccurrences(of: "SERVICES", with: tree.root + "/pam"))
        return tree
    }

    /// capctl in the directory's namespace, as root or as a directory user (70001 dirstaff, 70003
    /// dircold) with the groups the directory gives it (`setpriv --init-groups`, through sssd) or `groups`.
    private func capctl(
        _ tree: PolicyTree, _ directory: DirectoryFixture, _ arguments: [String], user: Int? = nil,
        groups: String? = nil, input: String = ""
    ) throws -> CapctlRun {
        var command = [PolicyTree.sharedCapctl] + arguments
        if let user {
            let identity = ["--reuid=\(user)", "--regid=70000"]
            command =
                ["/usr/bin/setpriv"] + identity + (groups.map { ["--groups=\($0)"] } ?? ["--init-groups"]) + command
        }
        return try tree.run(directory.inside(command), extraEnvironment: [:], input: input)
    }

    @Test("a directory user's password opens a PAM gate, a wrong one is an authentication failure")
    func password() throws {
        let directory = try DirectoryFixture()
        let tree = try tree()
        let right = try capctl(
            tree, directory, ["check", "as-staff", "--password-stdin"], input: "dirstaff-password\n")
        #expect(right.status == 0, "\(right.output)\(right.error)\(directory.sssdLog)")
        let wrong = try capctl(tree, directory, ["check", "as-staff", "--password-stdin"], input: "guess\n")
        #expect(wrong.status == 1)
        #expect(wrong.output.contains("as-staff: fails"), "\(wrong.output)")
        #expect(wrong.output.contains("authentication failed for dirstaff"), "\(wrong.output)")
    }

    @Test("the directory's access rule refuses in PAM's account stage, and is named so, with the right password")
    func accessRule() throws {
        let directory = try DirectoryFixture()
        let tree = try tree()
        let guest = try capctl(
            tree, directory, ["authorize", "guest", "--password-stdin", "--json"], input: "dirguest-password\n")
        #expect(guest.status == 1, "\(guest.output)\(guest.error)")
        let object = try #require(try guest.json() as? [String: Any])
        #expect(object["status"] as? String == "denied")
        let reason = object["reason"] as? String ?? ""
        #expect(reason.contains("account not permitted by the account check"), "\(reason)")
        #expect(!reason.contains("authentication failed"), "\(reason)")
    }

    @Test(
        "group gates and the flag rule on groups see a directory user's groups, an entry over 64 KiB included"
    )
    func groups() throws {
        let directory = try DirectoryFixture()
        let tree = try tree()
        let staff = try capctl(tree, directory, ["status", "users", "big", "--json"], user: 70001)
        let statuses = try #require((try staff.json() as? [String: Any])?["capabilities"] as? [[String: Any]])
        #expect(statuses.map { $0["status"] as? String } == ["authorized", "authorized"], "\(staff.output)")
        // The rule "members of dirbig are denied" holds for a member (a 16 KiB buffer dropped dirbig from groups).
        let member = try capctl(tree, directory, ["check", "not-in-dirbig"], user: 70001)
        #expect(member.status == 1, "\(member.output)\(member.error)")
        #expect(member.output.contains("not-in-dirbig: fails"), "\(member.output)")
        let other = try capctl(tree, directory, ["check", "not-in-dirbig"], user: 70003)
        #expect(other.status == 0, "\(other.output)\(other.error)")
        let notMember = try capctl(tree, directory, ["status", "big"], user: 70003)
        #expect(notMember.status == 1)
        #expect(notMember.output.contains("not a member of dirbig(70010)"), "\(notMember.output)")
    }

    @Test(
        "directory stopped: a cached login still passes, the policy loads; sssd stopped: PAM unavailable with the cause backendUnreachable, rules reading groups undecided, nothing rejected"
    )
    func outage() throws {
        let directory = try DirectoryFixture()
        let tree = try tree()
        // Online once: sssd caches dirstaff's credentials and the groups it looked up.
        let online = try capctl(
            tree, directory, ["check", "as-staff", "--password-stdin"], input: "dirstaff-password\n")
        #expect(online.status == 0, "\(online.output)\(online.error)")

        try directory.stopDirectory()
        let cached = try capctl(
            tree, directory, ["check", "as-staff", "--password-stdin"], input: "dirstaff-password\n")
        #expect(cached.status == 0, "sssd's cached credentials: \(cached.output)\(cached.error)")
        let cachedWrong = try capctl(tree, directory, ["check", "as-staff", "--password-stdin"], input: "guess\n")
        #expect(cachedWrong.status == 1, "\(cachedWrong.output)")
        #expect(try capctl(tree, directory, ["validate"]).status == 0)

        try directory.stopSSSD()
        try tree.write("etc/policy.d/late.yaml", "capabilities:\n  late: { kind: group, group: dirlate }\n")
        let unreachable = try capctl(
            tree, directory, ["authorize", "staff", "--password-stdin", "--json"], input: "dirstaff-password\n")
        #expect(unreachable.status == 1, "\(unreachable.output)\(unreachable.error)")
        let object = try #require(try unreachable.json() as? [String: Any], "\(unreachable.output)")
        #expect(object["status"] as? String == "unavailable", "\(object)")
        #expect(object["cause"] as? String == "backendUnreachable", "\(object)")
        // A group no cache holds: undecided at check time, never a policy rejected whole.
        let late = try capctl(tree, directory, ["status", "late", "users"])
        #expect(late.status == 1, "\(late.output)\(late.error)")
        #expect(late.output.contains("cannot resolve dirlate"), "\(late.output)")
        // A process in a group nobody can name now: the rule on groups is an error, not "not a member".
        let rule = try capctl(tree, directory, ["check", "not-in-dirbig"], user: 70001, groups: "70000,70020")
        #expect(rule.status == 1, "\(rule.output)\(rule.error)")
        #expect(rule.output.contains("not-in-dirbig: undecided"), "\(rule.output)")
        #expect(rule.output.contains("context attribute \"groups\", which is incomplete"), "\(rule.output)")
    }
}
