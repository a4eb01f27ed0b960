import Capabilities
import ConfigurationFiles
import Foundation
import Glibc
import LinuxBackends
import Locking
import ProcedureCore
import TestSupport
import Testing

/// Real PAM transactions through libpam, loaded with dlopen, against service files in a
/// directory of the test's own (`pam_start_confdir`): pam_matrix (libpam-wrapper) checks
/// passwords from a file; the stock pam_debug, pam_echo and pam_permit inject outcomes.
@Suite(
    "PAM login",
    .enabled(if: PAMServiceDirectory.isAvailable, "needs libpam-wrapper (pam_matrix.so) and the stock PAM modules"),
    .timeLimit(.minutes(2)))
struct PAMLoginTests {
    private func login(
        _ directory: PAMServiceDirectory, service: String = "test", user: String = "alice", password: String?
    ) async throws -> (CapabilityStatus, RecordingConversation) {
        let recorder = RecordingConversation(password: password)
        let capability = try PAMLogin(
            service: service, user: user, serviceDirectory: directory.path, conversation: recorder.conversation)
        return (try await capability.authorize(), recorder)
    }

    @Test("the right password authorizes; the wrong one is denied")
    func passwords() async throws {
        let directory = try PAMServiceDirectory(passwords: ["alice:secret:test"])
        try directory.matrixService("test")
        let (granted, recorder) = try await login(directory, password: "secret")
        #expect(granted.kind == .authorized, "\(granted)")
        #expect(recorder.prompts == 1)
        let (refused, _) = try await login(directory, password: "guess")
        #expect(refused.kind == .denied)
        #expect(refused.reason.hasPrefix("authentication failed"), "\(refused)")
    }

    @Test(
        "a wrong password is told \"Sorry, try again.\" and asked again, three times by default; a right one meanwhile authorizes",
        arguments: [
            (["secret"], 3, CapabilityStatus.Kind.authorized, 1), (["guess", "secret"], 3, .authorized, 2),
            (["guess", "guess", "secret"], 3, .authorized, 3), (["guess", "guess", "guess", "secret"], 3, .denied, 3),
            (["guess", "secret"], 1, .denied, 1), (["guess", "guess", "secret"], 2, .denied, 2),
        ])
    func tries(answers: [String], tries: Int, expected: CapabilityStatus.Kind, asked: Int) async throws {
        let directory = try PAMServiceDirectory(passwords: ["alice:secret:test"])
        try directory.matrixService("test")
        let person = AnsweringInTurn(answers)
        let login = try PAMLogin(
            service: "test", user: "alice", serviceDirectory: directory.path, conversation: person, tries: tries)
        let status = try await login.authorize()
        #expect(status.kind == expected, "\(status)")
        #expect(person.prompts == Array(repeating: "[capctl] password for alice: ", count: asked))
        let sorry = person.shown.filter { $0 == PAMMessage(style: .error, text: "Sorry, try again.") }
        #expect(sorry.count == asked - 1, "told after each wrong answer but the last: \(person.shown)")
        if expected == .denied { #expect(status.reason.hasPrefix("authentication failed"), "\(status)") }
    }

    @Test(
        "a retry nobody answers (end of input, a client that answers once) ends as the wrong password it had, not dismissed"
    )
    func unansweredRetry() async throws {
        let directory = try PAMServiceDirectory(passwords: ["alice:secret:test"])
        try directory.matrixService("test")
        let person = AnsweringInTurn(["guess"])
        let login = try PAMLogin(service: "test", user: "alice", serviceDirectory: directory.path, conversation: person)
        let status = try await login.authorize()
        #expect(status.kind == .denied && status.reason.hasPrefix("authentication failed"), "\(status)")
        #expect(person.prompts.count == 2)
        // Dismissed at the first question, it stays dismissed.
        let silent = AnsweringInTurn([])
        let dismissed = try await PAMLogin(
            service: "test", user: "alice", serviceDirectory: directory.path, conversation: silent
        ).authorize()
        #expect(dismissed.kind == .notDetermined && dismissed.cause == .dismissed, "\(dismissed)")
    }

    @Test("tries outside 1 to 10 are refused when the capability is made")
    func triesBounds() {
        for tries in [0, -1, 11, Int.max] {
            #expect(throws: CapabilityConfigurationError.self) {
                try PAMLogin(service: "test", user: "alice", conversation: AnsweringInTurn([]), tries: tries)
            }
        }
    }

    @Test("an unknown user is denied")
    func unknownUser() async throws {
        let directory = try PAMServiceDirectory(passwords: ["alice:secret:test"])
        try directory.matrixService("test")
        let (status, _) = try await login(directory, user: "mallory", password: "secret")
        #expect(status.kind == .denied)
        // pam_matrix answers an unknown user as a failed authentication, as most modules do.
        #expect(status.reason.hasPrefix("authentication failed for mallory"), "\(status)")
    }

    @Test("a user whose password is for another service is denied")
    func serviceNotAllowed() async throws {
        let directory = try PAMServiceDirectory(passwords: ["alice:secret:other"])
        try directory.matrixService("test")
        let (status, _) = try await login(directory, password: "secret")
        #expect(status.kind == .denied)
        // pam_matrix takes the password and refuses in its account stage: an access rule.
        #expect(status.reason.hasPrefix("account not permitted"), "\(status)")
    }

    @Test("an expired account is denied with that reason")
    func expiredAccount() async throws {
        let directory = try PAMServiceDirectory(passwords: ["alice:secret:test"])
        try directory.matrixService("test", account: ["account required MODULES/pam_debug.so acct=acct_expired"])
        let (status, _) = try await login(directory, password: "secret")
        #expect(status.kind == .denied)
        #expect(status.reason.hasPrefix("account expired"), "\(status)")
    }

    @Test("a refusal in the account stage (an access rule) is named as such, not as a failed authentication")
    func accountNotPermitted() async throws {
        for code in ["perm_denied", "auth_err", "user_unknown"] {
            let directory = try PAMServiceDirectory(passwords: ["alice:secret:test"])
            try directory.matrixService("test", account: ["account required MODULES/pam_debug.so acct=\(code)"])
            let (status, _) = try await login(directory, password: "secret")
            #expect(status.kind == .denied)
            #expect(status.reason.hasPrefix("account not permitted by the account check"), "\(code): \(status)")
        }
    }

    @Test("an unreachable directory (PAM_AUTHINFO_UNAVAIL) is unavailable with its own cause, in either stage")
    func directoryUnreachable() async throws {
        let directory = try PAMServiceDirectory(passwords: ["alice:secret:test"])
        try directory.service("auth-down", ["auth required MODULES/pam_debug.so auth=authinfo_unavail"])
        let login = try PAMLogin(
            service: "auth-down", user: "alice", serviceDirectory: directory.path,
            conversation: RecordingConversation(password: "secret").conversation, checksAccount: false)
        let down = try await login.authorize()
        #expect(down.kind == .unavailable && down.cause == .backendUnreachable, "\(down)")
        try directory.matrixService(
            "account-down", account: ["account required MODULES/pam_debug.so acct=authinfo_unavail"])
        let (status, _) = try await self.login(directory, service: "account-down", password: "secret")
        #expect(status.kind == .unavailable && status.cause == .backendUnreachable, "\(status)")
    }

    @Test("a required new password is denied with that reason")
    func newPasswordRequired() async throws {
        let directory = try PAMServiceDirectory(passwords: ["alice:secret:test"])
        try directory.matrixService("test", account: ["account required MODULES/pam_debug.so acct=new_authtok_reqd"])
        let (status, _) = try await login(directory, password: "secret")
        #expect(status.kind == .denied)
        #expect(status.reason.hasPrefix("new password required"), "\(status)")
    }

    @Test("too many tries is denied with that reason")
    func maxTries() async throws {
        let directory = try PAMServiceDirectory(passwords: [])
        try directory.service(
            "test", ["auth required MODULES/pam_debug.so auth=maxtries", "account required MODULES/pam_permit.so"])
        let (status, _) = try await login(directory, password: nil)
        #expect(status.kind == .denied)
        #expect(status.reason.hasPrefix("too many tries"), "\(status)")
    }

    @Test("a cancelled conversation is notDetermined (dismissed), not denied")
    func dismissed() async throws {
        let directory = try PAMServiceDirectory(passwords: ["alice:secret:test"])
        try directory.matrixService("test")
        let (status, recorder) = try await login(directory, password: nil)
        #expect(recorder.prompts == 1)
        #expect(status.kind == .notDetermined)
        #expect(status.cause == .dismissed, "\(status)")
        #expect(status.reason.hasPrefix("dismissed"), "\(status)")
    }

    @Test("information messages reach the conversation")
    func messages() async throws {
        let directory = try PAMServiceDirectory(passwords: ["alice:secret:test"])
        try directory.matrixService("test", extraAuth: ["auth optional MODULES/pam_echo.so Maintenance window tonight"])
        let (status, recorder) = try await login(directory, password: "secret")
        #expect(status.kind == .authorized)
        #expect(recorder.messages.contains(PAMMessage(style: .info, text: "Maintenance window tonight")))
    }

    @Test("a missing service file is unavailable, and nothing is asked")
    func missingService() async throws {
        let directory = try PAMServiceDirectory(passwords: ["alice:secret:test"])
        let recorder = RecordingConversation(password: "secret")
        let capability = try PAMLogin(
            service: "absent", user: "alice", serviceDirectory: directory.path, conversation: recorder.conversation)
        #expect(await capability.resolveStatus().kind == .unavailable)
        #expect(await capability.resolveStatus().cause == .misconfigured)
        #expect(try await capability.authorize().kind == .unavailable)
        #expect(recorder.prompts == 0)
    }

    @Test("a service naming a module that does not exist is unavailable")
    func missingModule() async throws {
        let directory = try PAMServiceDirectory(passwords: [])
        try directory.service(
            "test", ["auth required /nonexistent/pam_nothing.so", "account required MODULES/pam_permit.so"])
        // Before anyone is asked, with where the module is named.
        let capability = try PAMLogin(service: "test", user: "alice", serviceDirectory: directory.path)
        let before = await capability.resolveStatus()
        #expect(before.kind == .unavailable, "\(before)")
        #expect(before.cause == .misconfigured)
        #expect(
            before.reason.contains("\(directory.path)/test:1: PAM module /nonexistent/pam_nothing.so is not installed"))
        let (status, recorder) = try await login(directory, password: "secret")
        #expect(status.kind == .unavailable, "\(status)")
        #expect(recorder.prompts == 0)
    }

    @Test(
        "the module check follows includes and substacks and, like Linux-PAM, minds only controls a failure counts for")
    func moduleCheckFollowsPAMSyntax() async throws {
        let directory = try PAMServiceDirectory(passwords: ["alice:secret:test"])
        try directory.matrixService("common")
        try directory.service(
            "test",
            [
                "# a comment line", "-auth optional /nonexistent/pam_optional.so", "auth optional nowhere.so",
                "auth sufficient nowhere.so", "auth [success=ok default=ignore] nowhere.so",
                "auth [success=ok module_unknown=ignore default=bad] nowhere.so",
                "auth [success=ok default=bad] MODULES/pam_permit.so", "auth include \(directory.path)/common",
                "account \\", "  required MODULES/pam_permit.so",
            ])
        let good = try PAMLogin(service: "test", user: "alice", serviceDirectory: directory.path)
        #expect(await good.resolveStatus().kind == .notDetermined)
        let account = "account required MODULES/pam_permit.so"
        try directory.service("broken-common", ["auth required pam_not_installed_anywhere.so"])
        try directory.service("through-include", ["@include \(directory.path)/broken-common", account])
        try directory.service("through-substack", ["auth substack \(directory.path)/broken-common", account])
        // A leading '-' only keeps the failure out of the log: a required module still fails.
        try directory.service("dash-required", ["-auth required pam_not_installed_anywhere.so", account])
        try directory.service(
            "bracket-bad", ["auth [success=ok default=bad] pam_not_installed_anywhere.so", account])
        for service in ["through-include", "through-substack", "dash-required", "bracket-bad"] {
            let status = await (try PAMLogin(service: service, user: "alice", serviceDirectory: directory.path))
                .resolveStatus()
            #expect(status.kind == .unavailable, "\(service): \(status)")
            #expect(
                status.reason.contains(":1: PAM module pam_not_installed_anywhere.so is not installed"))
        }
        // A missing module on an account line does not matter when accounts are not checked.
        try directory.service(
            "no-account-check", ["auth required MODULES/pam_permit.so", "account required nowhere.so"])
        let unchecked = try PAMLogin(
            service: "no-account-check", user: "alice", serviceDirectory: directory.path, checksAccount: false)
        #expect(await unchecked.resolveStatus().kind == .notDetermined)
    }

    @Test("with no terminal to ask on, the login is dismissed with a reason that says how to answer instead")
    func noTerminal() async throws {
        let directory = try PAMServiceDirectory(passwords: ["alice:secret:test"])
        try directory.matrixService("test")
        let capability = try PAMLogin(
            service: "test", user: "alice", serviceDirectory: directory.path,
            conversation: TerminalPAMConversation(device: directory.path + "/no-such-tty"))
        let status = try await capability.authorize()
        #expect(status.kind == .notDetermined)
        #expect(status.cause == .dismissed)
        #expect(status.reason.contains("no terminal to ask on"), "\(status)")
        #expect(status.reason.contains("--password-stdin") && status.reason.contains("ProgrammaticPAMConversation"))
    }

    @Test("without libpam the capability is unavailable, with the reason")
    func missingLibrary() async throws {
        let capability = try PAMLogin(service: "login", user: "alice", library: "libpam-that-is-not-here.so.0")
        guard case .unavailable(let reason) = capability.availability else {
            Issue.record("expected unavailable")
            return
        }
        #expect(reason.contains("libpam-that-is-not-here.so.0"))
        let procedure = BlockProcedure {}
        procedure.addCondition(AuthorizedFor(capability))
        await run(procedure)
        #expect(procedure.isCancelled)
    }

    @Test("a gate asks once; the kept login opens the next gates without asking")
    func gateWithKeptLogin() async throws {
        let directory = try PAMServiceDirectory(passwords: ["alice:secret:test"])
        try directory.matrixService("test")
        let recorder = RecordingConversation(password: "secret")
        let admin = try PAMLogin(
            service: "test", user: "alice", serviceDirectory: directory.path, conversation: recorder.conversation
        )
        .keepingAuthorization(for: .seconds(600))
        for _ in 0..<3 {
            let procedure = BlockProcedure {}
            procedure.addCondition(AuthorizedFor(admin))
            await run(procedure)
            #expect(procedure.error == nil)
        }
        #expect(recorder.prompts == 1)
    }

    @Test("on a terminal: the password prompt has echo off, and the answer is read from the terminal")
    func terminalConversation() async throws {
        let directory = try PAMServiceDirectory(passwords: ["alice:secret:test"])
        try directory.matrixService("test")
        let terminal = try PseudoTerminal()
        let login = try PAMLogin(
            service: "test", user: "alice", serviceDirectory: directory.path,
            conversation: TerminalPAMConversation(device: terminal.deviceName, purpose: "restart-web"))
        async let status = login.authorize()
        let prompt = await terminal.read(until: ": ")
        // pam_matrix's bare "Password: ", said as sudo says it, with what it is for.
        #expect(prompt.hasSuffix("[capctl] password for alice to restart-web: "), "\(prompt)")
        terminal.type("secret\n")
        #expect(try await status.kind == .authorized)
        // With echo off, the terminal shows the newline but not the password.
        #expect(!terminal.readAvailable().contains("secret"))
    }

    @Test("bad input is refused when the capability is made")
    func badInput() {
        #expect(throws: CapabilityConfigurationError.self) { try PAMLogin(service: "../etc/passwd") }
        #expect(throws: CapabilityConfigurationError.self) {
            try PAMLogin(service: "login", serviceDirectory: "relative/dir")
        }
        #expect(throws: CapabilityConfigurationError.self) { try PAMLogin(service: "") }
    }

    @Test(
        "service names Linux-PAM would not map to their own file are refused",
        arguments: ["LockedDown", "Login", ".", "..", "a b", "sudo\n", "login/x", "ü"])
    func serviceNamesPAMRewrites(name: String) {
        #expect(throws: CapabilityConfigurationError.self) { try PAMLogin(service: name) }
    }

    @Test("a service without its own file never falls back to the `other` stack")
    func noOtherFallback() async throws {
        let directory = try PAMServiceDirectory(passwords: ["alice:secret:other"])
        // `other` permits everyone: libpam would run it for any service whose file is missing.
        try directory.service(
            "other", ["auth required MODULES/pam_permit.so", "account required MODULES/pam_permit.so"])
        let (status, recorder) = try await login(directory, service: "lockeddown", password: "secret")
        #expect(status.kind == .unavailable, "\(status)")
        #expect(status.reason.contains("no PAM service file \(directory.path)/lockeddown"))
        #expect(recorder.prompts == 0)
        // Named explicitly, `other` is used.
        let (named, _) = try await login(directory, service: "other", password: "secret")
        #expect(named.kind == .authorized, "\(named)")
    }

    @Test("a service file others can write, or a service directory others can write, is not used")
    func untrustedServiceFile() async throws {
        let directory = try PAMServiceDirectory(passwords: ["alice:secret:test"])
        try directory.matrixService("test")
        chmod(directory.path + "/test", 0o646)
        let (status, recorder) = try await login(directory, password: "secret")
        #expect(status.kind == .unavailable, "\(status)")
        #expect(status.reason.contains("can be written by anyone"), "\(status)")
        #expect(recorder.prompts == 0)
        chmod(directory.path + "/test", 0o644)
        chmod(directory.path, 0o777)
        let (inWritable, _) = try await login(directory, password: "secret")
        #expect(inWritable.kind == .unavailable, "\(inWritable)")
        #expect(inWritable.reason.contains("the directory holding \(directory.path)/test"), "\(inWritable)")
        chmod(directory.path, 0o700)
        let (trusted, _) = try await login(directory, password: "secret")
        #expect(trusted.kind == .authorized, "\(trusted)")
    }
}

/// A person who types the given answers in turn, then gives up (end of input); what they were
/// asked and shown is kept.
final class AnsweringInTurn: PAMConversation, Sendable {
    private let state: Lock<(answers: [String], prompts: [String], shown: [PAMMessage])>

    init(_ answers: [String]) { state = Lock((answers, [], [])) }

    var prompts: [String] { state.withLock { $0.prompts } }
    var shown: [PAMMessage] { state.withLock { $0.shown } }

    func answer(_ prompt: PAMMessage) -> PAMAnswer {
        state.withLock { state in
            state.prompts.append(prompt.text)
            guard !state.answers.isEmpty else { return .cancel }
            return .secret(PAMSecret(state.answers.removeFirst()))
        }
    }

    func show(_ message: PAMMessage) { state.withLock { $0.shown.append(message) } }
}
