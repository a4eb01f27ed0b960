import Foundation
import Testing
import TestSupport

/// A PAM gate answered through --password-stdin against a pam_matrix service directory.
@Suite(
    "capctl with PAM", .enabled(if: PAMTestModules.matrix != nil, "needs libpam-wrapper (pam_matrix.so)"),
    .timeLimit(.minutes(1)))
struct CapctlPAMTests {
    private func tree() throws -> PolicyTree {
        let tree = try PolicyTree()
        let passwords = try tree.write("pam/passdb", "alice:secret:capctl-test\n")
        try tree.write("pam/capctl-test", """
            auth required \(PAMTestModules.matrix!) passdb=\(passwords)
            account required \(PAMTestModules.matrix!) passdb=\(passwords)
            """)
        try tree.write("etc/policy.yaml", """
            capabilities:
              admin: { kind: pam, service: capctl-test, user: alice, service-directory: \(tree.root)/pam }
              tmp: { kind: file, path: /tmp }
            gates:
              export: { require: { all-of: [tmp, admin] } }
              quiet: { require: { silent: admin } }
            """)
        return tree
    }

    @Test("check --password-stdin: the right password opens the gate, a wrong one does not")
    func passwordFromStandardInput() throws {
        let tree = try tree()
        #expect(try tree.capctl(["check", "export", "--password-stdin"], input: "secret\n").status == 0)
        let wrong = try tree.capctl(["check", "export", "--password-stdin"], input: "guess\n")
        #expect(wrong.status == 1)
        #expect(wrong.output.contains("authentication failed"))
    }

    @Test("--no-prompt: a gate that would ask exits 2; a silent gate never asks")
    func noPrompt() throws {
        let tree = try tree()
        let run = try tree.capctl(["check", "export", "--no-prompt"])
        #expect(run.status == 2)
        #expect(run.output.contains("AuthorizedFor(admin): not checked: not asked: PAM service"), "\(run.output)")
        #expect(try tree.capctl(["check", "quiet", "--password-stdin"], input: "secret\n").status == 1)
    }

    @Test("authorize: 0 authorized, 1 denied, 3 dismissed")
    func authorize() throws {
        let tree = try tree()
        let granted = try tree.capctl(["authorize", "admin", "--password-stdin", "--json"], input: "secret\n")
        #expect(granted.status == 0)
        let object = try #require(try granted.json() as? [String: Any])
        #expect(object["status"] as? String == "authorized")
        #expect(try tree.capctl(["authorize", "admin", "--password-stdin"], input: "guess\n").status == 1)
        let dismissed = try tree.capctl(["authorize", "admin", "--password-stdin"], input: "")
        #expect(dismissed.status == 3, "\(dismissed.output)")
        #expect(dismissed.output.contains("dismissed"))
    }
}
