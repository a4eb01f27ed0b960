import Capabilities
import Foundation
import Glibc
import TestSupport
import Testing

@testable import LinuxBackends

/// The PAM stack model against what libpam itself does with the same files: each refusal here is
/// a case where libpam would run something other than what the service file says, or never finish.
@Suite(
    "PAM stacks as libpam reads them",
    .enabled(if: PAMServiceDirectory.isAvailable, "needs libpam-wrapper (pam_matrix.so) and the stock PAM modules"),
    .timeLimit(.minutes(2)))
struct PAMServiceFileTests {
    private func status(_ directory: PAMServiceDirectory, _ service: String = "test") async throws -> CapabilityStatus {
        await (try PAMLogin(service: service, user: "alice", serviceDirectory: directory.path)).resolveStatus()
    }

    private func authorize(_ directory: PAMServiceDirectory, _ service: String = "test", password: String = "wrong")
        async throws -> (CapabilityStatus, Int)
    {
        let recorder = RecordingConversation(password: password)
        let login = try PAMLogin(
            service: service, user: "alice", serviceDirectory: directory.path, conversation: recorder.conversation)
        return (try await login.authorize(), recorder.prompts)
    }

    @Test("a service with no auth lines (or an empty file) would run other's auth stack: refused, nobody asked")
    func noAuthLinesFallsBackToOther() async throws {
        let directory = try PAMServiceDirectory(passwords: ["alice:secret:test"])
        // libpam runs `other`'s auth stack for a service that has none: pam_permit lets any password in.
        try directory.service(
            "other", ["auth required MODULES/pam_permit.so", "account required MODULES/pam_permit.so"])
        try directory.service("test", ["account required MODULES/pam_permit.so"])
        try directory.service("empty", [])
        for service in ["test", "empty"] {
            let before = try await status(directory, service)
            #expect(before.kind == .unavailable, "\(service): \(before)")
            #expect(before.cause == .misconfigured)
            #expect(
                before.reason.contains("has no auth lines, so Linux-PAM would run the \"other\" service's auth stack"))
            let (after, prompts) = try await authorize(directory, service)
            #expect(after.kind == .unavailable, "\(service): \(after)")
            #expect(prompts == 0)
        }
        // The account group falls back the same way when accounts are checked.
        try directory.matrixService("no-account", account: [])
        #expect(try await status(directory, "no-account").reason.contains("has no account lines"))
        let unchecked = try PAMLogin(
            service: "no-account", user: "alice", serviceDirectory: directory.path, checksAccount: false)
        #expect(await unchecked.resolveStatus().kind == .notDetermined)
    }

    @Test("an include loop is refused (libpam recurses until the process crashes)")
    func includeLoop() async throws {
        let directory = try PAMServiceDirectory(passwords: [])
        try directory.service("test", ["@include \(directory.path)/a", "account required MODULES/pam_permit.so"])
        try directory.service("a", ["auth include \(directory.path)/b"])
        try directory.service("b", ["@include \(directory.path)/a"])
        let status = try await status(directory)
        #expect(status.kind == .unavailable, "\(status)")
        #expect(
            status.reason.contains(
                "PAM include loop: \(directory.path)/a -> \(directory.path)/b -> \(directory.path)/a"))
        #expect(try await authorize(directory).1 == 0)
    }

    @Test("includes past the bound are misconfigured, never fine; a missing module 41 files down is found")
    func deepIncludes() async throws {
        let directory = try PAMServiceDirectory(passwords: [])
        func chain(_ depth: Int, last: String) throws {
            try directory.service(
                "test", ["auth include \(directory.path)/f1", "account required MODULES/pam_permit.so"])
            for level in 1..<depth { try directory.service("f\(level)", ["@include \(directory.path)/f\(level + 1)"]) }
            try directory.service("f\(depth)", [last])
        }
        try chain(14, last: "auth required MODULES/pam_permit.so")
        #expect(try await status(directory).kind == .notDetermined)
        try chain(14, last: "auth required pam_not_installed_anywhere.so")
        #expect(try await status(directory).reason.contains("f14:1: PAM module pam_not_installed_anywhere.so"))
        for depth in [33, 41] {
            try chain(depth, last: "auth required pam_not_installed_anywhere.so")
            let status = try await status(directory)
            #expect(status.kind == .unavailable, "\(depth): \(status)")
            #expect(status.cause == .misconfigured)
            #expect(status.reason.contains("PAM includes nest deeper than 16 files"), "\(status)")
        }
    }

    @Test("relative includes are read from /etc/pam.d, as libpam does, not from the service directory")
    func relativeIncludes() async throws {
        let directory = try PAMServiceDirectory(passwords: ["alice:secret:test"])
        // libpam looks for `common` in /etc/pam.d, finds nothing, and fails every auth request.
        try directory.matrixService("common")
        try directory.service("test", ["auth include common", "account required MODULES/pam_permit.so"])
        let status = try await status(directory)
        #expect(status.kind == .unavailable, "\(status)")
        #expect(status.reason.contains("includes common, which is not there"), "\(status)")
        // The same include, named by its path, is what libpam reads, and works.
        try directory.service(
            "test", ["auth include \(directory.path)/common", "account required MODULES/pam_permit.so"])
        let (authorized, _) = try await authorize(directory, password: "secret")
        #expect(authorized.kind == .authorized, "\(authorized)")
    }

    @Test("a line continued past libpam's 1024-byte buffer is refused before libpam can spin on it")
    func overlongContinuation() async throws {
        let directory = try PAMServiceDirectory(passwords: [])
        try directory.service(
            "test",
            ["auth required \\"] + Array(repeating: "  \\", count: 1_100) + [
                "MODULES/pam_permit.so", "account required MODULES/pam_permit.so",
            ])
        let status = try await status(directory)
        #expect(status.kind == .unavailable, "\(status)")
        #expect(status.reason.contains("test:1: the line continues a line past libpam's 1024-byte buffer"), "\(status)")
        let (after, prompts) = try await authorize(directory)
        #expect(after.kind == .unavailable)
        #expect(prompts == 0)
    }

    @Test("lines join as libpam joins them: blank and comment lines inside a continuation, blanks after \\")
    func continuationsAsLibpam() async throws {
        let directory = try PAMServiceDirectory(passwords: [])
        // libpam reads this as one auth line of pam_permit; a reader that stops at the blank line
        // would see an auth line without a module.
        try directory.service(
            "test",
            [
                "auth \\   ", "", "# a comment", "   required \\", "MODULES/pam_permit.so",
                "account required MODULES/pam_permit.so",
            ])
        #expect(try await status(directory).kind == .notDetermined)
        let (status, _) = try await authorize(directory)
        #expect(status.kind == .authorized, "\(status)")
    }

    @Test(
        "the line assembler follows libpam's buffer",
        arguments: [
            ("auth required x.so # trailing\naccount required y.so\n", [1, 2], nil),
            ("auth required \\\n\n  x.so\n", [1], nil),
            ("auth required x.so \\", [], "ends inside a line continued with \\"),
            (String(repeating: "a", count: 1_024) + "\n", [], "longer than libpam's 1024-byte buffer"),
            (String(repeating: "a", count: 1_023) + "\n", [1], nil),
            ("auth\u{0}required x.so\n", [], "holds a NUL byte"),
        ] as [(String, [Int], String?)])
    func assembler(text: String, lines: [Int], refusal: String?) {
        do {
            let assembled = try PAMLineAssembler.lines(of: Array(text.utf8))
            #expect(refusal == nil, "expected a refusal: \(refusal ?? "")")
            #expect(assembled.map(\.number) == lines)
        } catch {
            #expect(refusal != nil && error.reason.contains(refusal!), "\(error)")
        }
    }

    @Test("a transaction that does not finish is unavailable after the timeout, not waited on for ever")
    func transactionTimeout() async throws {
        let directory = try PAMServiceDirectory(passwords: [])
        let fifo = directory.path + "/release"
        #expect(mkfifo(fifo, 0o600) == 0)
        let script = directory.path + "/hang"
        try "#!/bin/sh\nread line < \(fifo)\n".write(toFile: script, atomically: false, encoding: .utf8)
        chmod(script, 0o755)
        try directory.service(
            "test", ["auth required MODULES/pam_exec.so \(script)", "account required MODULES/pam_permit.so"])
        let login = try PAMLogin(
            service: "test", user: "alice", serviceDirectory: directory.path, timeout: .milliseconds(200))
        let status = try await login.authorize()
        #expect(status.kind == .unavailable, "\(status)")
        #expect(status.cause == .error)
        #expect(status.reason.contains("did not finish within"))
        // Let the abandoned transaction end.
        let writer = open(fifo, O_WRONLY)
        #expect(writer >= 0)
        _ = write(writer, "x\n", 2)
        close(writer)
    }
}
