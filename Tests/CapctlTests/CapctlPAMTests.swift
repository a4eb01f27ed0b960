import CLinuxSupport
import Foundation
import Glibc
import TestSupport
import Testing

/// A PAM gate answered through --password-stdin against a pam_matrix service directory.
@Suite(
    "capctl with PAM", .enabled(if: PAMTestModules.matrix != nil, "needs libpam-wrapper (pam_matrix.so)"),
    .timeLimit(.minutes(2)))
struct CapctlPAMTests {
    private func tree() throws -> PolicyTree {
        let tree = try PolicyTree()
        try tree.matrixService("capctl-test")
        try tree.write(
            "etc/policy.yaml",
            """
            capabilities:
              admin: { kind: pam, service: capctl-test, user: alice, service-directory: \(tree.root)/pam }
              tmp: { kind: file, path: /tmp }
            gates:
              export: { require: { all-of: [tmp, admin] } }
              quiet: { require: { silent: admin } }
            """)
        return tree
    }

    @Test(
        "root is asked like anyone, and --explain says so; root: pass lets root's processes through without a login, nobody else"
    )
    func rootAndLogins() throws {
        let tree = try tree()
        let asked = try tree.capctl(["check", "export", "--non-interactive", "--explain"])
        #expect(asked.status == 2, "\(asked.output)")
        #expect(asked.output.contains("root is asked like anyone"), "\(asked.output)")
        try tree.write(
            "etc/policy.yaml",
            """
            capabilities:
              admin: { kind: pam, service: capctl-test, user: alice, service-directory: \(tree.root)/pam, root: pass }
              tmp: { kind: file, path: /tmp }
            gates:
              export: { require: { all-of: [tmp, admin] } }
            """)
        let root = try tree.capctl(["check", "export", "--non-interactive", "--explain"])
        #expect(root.status == 0, "\(root.output)")
        #expect(
            root.output.contains(
                "AuthorizedFor(admin): passed: root's processes hold it without a login (the policy's root: pass)"),
            "\(root.output)")
        let nobody = try tree.capctl(["check", "export", "--non-interactive"], as: .nobody)
        #expect(nobody.status == 2, "anyone else is still asked: \(nobody.output)")
        try tree.write(
            "etc/policy.yaml",
            "capabilities:\n  admin: { kind: pam, service: capctl-test, root: always }\ngates:\n  g: { require: admin }\n"
        )
        let refused = try tree.capctl(["validate"])
        #expect(refused.status == 78 && refused.output.contains("policy.yaml:2:"), "\(refused.output)")
    }

    @Test(
        "a PAM service naming a module that is not installed: validate warns, status and check say unavailable, nobody is asked"
    )
    func uninstalledModule() throws {
        let tree = try tree()
        try tree.write("pam/capctl-test", "auth required pam_typo_not_installed.so\naccount required pam_permit.so\n")
        let validated = try tree.capctl(["validate"])
        #expect(validated.status == 0)
        #expect(
            validated.output.contains(
                "capability \"admin\" is unavailable on this host: \(tree.root)/pam/capctl-test:1: PAM module pam_typo_not_installed.so is not installed"
            ), "\(validated.output)")
        let status = try tree.capctl(["status", "admin"])
        #expect(status.status == 1)
        #expect(status.output.contains("unavailable"))
        let check = try tree.capctl(["check", "export", "--password-stdin"], input: "secret\n")
        #expect(check.status == 1)
        #expect(check.output.contains("pam_typo_not_installed.so is not installed"), "\(check.output)")
    }

    @Test(
        "stacks libpam would run differently are unavailable through the binary: no auth lines (other's stack), a loop, a line libpam spins on, a module 41 includes down"
    )
    func stacksAsLibpamReadsThem() throws {
        let tree = try tree()
        let permit = PAMTestModules.stockDirectory! + "/pam_permit.so"
        // A permissive `other`: a wrong password would pass if libpam's fallback were missed.
        try tree.write("pam/other", "auth required \(permit)\naccount required \(permit)\n")
        var cases: [(String, String)] = [
            ("account required \(permit)\n", "has no auth lines"),
            ("@include \(tree.root)/pam/loop-a\naccount required \(permit)\n", "PAM include loop"),
            (
                "auth required \\\n" + String(repeating: "  \\\n", count: 1_100)
                    + "\(permit)\naccount required \(permit)\n",
                "past libpam's 1024-byte buffer"
            ),
            ("auth include \(tree.root)/pam/deep1\naccount required \(permit)\n", "nest deeper than 16 files"),
        ]
        try tree.write("pam/loop-a", "auth include \(tree.root)/pam/loop-b\n")
        try tree.write("pam/loop-b", "@include \(tree.root)/pam/loop-a\n")
        for level in 1...40 { try tree.write("pam/deep\(level)", "@include \(tree.root)/pam/deep\(level + 1)\n") }
        try tree.write("pam/deep41", "auth required pam_typo_not_installed.so\n")
        cases.append(("", "has no auth lines"))
        for (service, reason) in cases {
            try tree.write("pam/capctl-test", service)
            let check = try tree.capctl(["check", "export", "--password-stdin"], input: "wrong\n")
            #expect(check.status == 1, "\(reason): \(check.output)")
            #expect(check.output.contains("undecided"), "\(reason): \(check.output)")
            #expect(check.output.contains(reason), "\(reason): \(check.output)")
            let nonInteractive = try tree.capctl(["check", "export", "--non-interactive"])
            #expect(nonInteractive.status == 1, "\(reason): \(nonInteractive.output)")
        }
    }

    @Test("check --password-stdin: the right password opens the gate, a wrong one does not")
    func passwordFromStandardInput() throws {
        let tree = try tree()
        #expect(try tree.capctl(["check", "export", "--password-stdin"], input: "secret\n").status == 0)
        let wrong = try tree.capctl(["check", "export", "--password-stdin"], input: "guess\n")
        #expect(wrong.status == 1)
        #expect(wrong.output.contains("authentication failed"))
    }

    @Test("--non-interactive: a gate that would ask exits 2; a silent gate never asks")
    func nonInteractive() throws {
        let tree = try tree()
        let run = try tree.capctl(["check", "export", "--non-interactive"])
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
        let dismissedJSON = try tree.capctl(["authorize", "admin", "--password-stdin", "--json"], input: "")
        #expect(dismissedJSON.status == 3)
        #expect((try dismissedJSON.json() as? [String: Any])?["cause"] as? String == "dismissed")
    }

    @Test("--password-stdin reads exactly one line: the rest of standard input is the command's")
    func oneLineOnly() throws {
        let tree = try tree()
        let run = try tree.capctl(
            ["run", "export", "--password-stdin", "--", "/bin/cat"], input: "secret\nfor the command\n")
        #expect(run.status == 0, "\(run.error)")
        #expect(run.output == "for the command\n")
    }

    @Test("--password-stdin: an overlong line is drained and refused, a NUL is refused, nothing runs")
    func hostileLines() throws {
        let tree = try tree()
        let long = String(repeating: "x", count: 100_000) + "secret\nrest\n"
        let overlong = try tree.capctl(["run", "export", "--password-stdin", "--", "/bin/cat"], input: long)
        #expect(overlong.status == 77)
        #expect(overlong.error.contains("the password line is longer than 4096 bytes"), "\(overlong.error)")
        #expect(!overlong.output.contains("rest") && !overlong.output.contains("secret"))
        let withNUL = try tree.capctl(["authorize", "admin", "--password-stdin"], input: "sec\u{0}ret\n")
        #expect(withNUL.status == 3, "\(withNUL.output)")
        #expect(withNUL.error.contains("contains a NUL byte"), "\(withNUL.error)")
    }

    @Test(
        "Ctrl-C, SIGTERM or SIGHUP at the terminal's password prompt leaves the terminal's echo on",
        arguments: [SIGINT, SIGTERM, SIGHUP])
    func echoRestoredOnSignal(signal: Int32) throws {
        let tree = try tree()
        var name = [CChar](repeating: 0, count: 128)
        let master = clinux_open_pseudo_terminal(&name, name.count)
        try #require(master >= 0)
        defer { close(master) }
        let device = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let slave = open(device, O_RDWR | O_NOCTTY)
        try #require(slave >= 0)
        // capctl in a session of its own, with the pseudo-terminal as its controlling terminal.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setsid")
        process.arguments = ["--ctty", "--wait", PolicyTree.capctl, "authorize", "admin"]
        var environment = tree.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        process.environment = environment
        let terminal = FileHandle(fileDescriptor: slave, closeOnDealloc: true)
        process.standardInput = terminal
        process.standardOutput = terminal
        process.standardError = terminal
        try process.run()
        var shown = ""
        var byte: UInt8 = 0
        // Up to the prompt ("[capctl] password for alice to admin: "), or a bounded amount of output.
        while !(shown.contains("password for") && shown.hasSuffix(": ")), shown.utf8.count < 4096,
            read(master, &byte, 1) == 1
        {
            shown.append(Character(UnicodeScalar(byte)))
        }
        var settings = termios()
        tcgetattr(master, &settings)
        #expect(settings.c_lflag & tcflag_t(ECHO) == 0, "echo is off at the prompt")
        if signal == SIGINT {
            // Ctrl-C, as a person presses it: the terminal sends SIGINT to capctl.
            var key: UInt8 = 3
            #expect(write(master, &key, 1) == 1)
        } else {
            // capctl leads the terminal's foreground process group.
            var group: pid_t = 0
            try #require(ioctl(master, UInt(TIOCGPGRP), &group) == 0 && group > 0)
            kill(-group, signal)
        }
        process.waitUntilExit()
        #expect(process.terminationStatus != 0, "capctl did not finish normally: setsid says so")
        tcgetattr(master, &settings)
        #expect(settings.c_lflag & tcflag_t(ECHO) != 0, "echo is back on after signal \(signal)")
    }
}
