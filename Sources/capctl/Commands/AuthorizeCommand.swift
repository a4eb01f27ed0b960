import ArgumentParser
import Capabilities
import CapabilityPolicy
import DecisionService
import FeatureFlags
import Glibc
import LinuxBackends
import LinuxPolicy
import ProcedureCore

/// `capctl authorize NAME`: runs a capability's authorization.
struct AuthorizeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "authorize",
        abstract: "Request authorization for a capability (for PAM: the password prompt).",
        discussion: "Exits 0 when authorized, 1 when denied or unavailable, 3 when the prompt was dismissed."
    )

    @OptionGroup var options: CommonOptions

    @Argument(help: "The capability's name in the policy.")
    var name: String?

    @Flag(name: .long, help: "Forget the logins kept for this terminal and session (as sudo -k), then stop.")
    var forget = false

    @Flag(name: .long, help: "Forget every login kept for you, in any terminal or session (as sudo -K), then stop.")
    var forgetAll = false

    @Flag(
        name: .long,
        help:
            "Make the login kept for this terminal and session good for its whole keep again, asking only when none is kept (as sudo -v)."
    )
    var extend = false

    @Option(name: .long, help: "The user to authenticate, for a PAM capability whose policy names none.")
    var user: String?

    @OptionGroup var password: PasswordOptions

    func validate() throws {
        if forget, forgetAll { throw ValidationError("give --forget or --forget-all, not both") }
        if forget || forgetAll {
            if name != nil || extend { throw ValidationError("--forget and --forget-all take no capability") }
        } else if name == nil {
            throw ValidationError("give the capability's name (or --forget, --forget-all)")
        }
    }

    func run() async throws {
        // A PAM user named here is capctl's to authenticate: capctld authenticates its caller's.
        let route =
            user == nil ? DecisionRoute.choose(policy: options.policy) : .inProcess(reason: "--user names the user")
        if forget || forgetAll {
            try forgetKeptLogins(route: route)
            return
        }
        let name = name!
        if case .daemon(let capctld) = route {
            try authorize(name, asking: capctld)
            return
        }
        var policyOptions = password.policyOptions(purpose: name)
        policyOptions.pamUser = user
        let policy = try await PolicyContext.load(options, policyOptions: policyOptions)
        let capability: any CapabilityType
        do {
            capability = try policy.capability(named: name)
        } catch {
            throw CommandFailure(message: "capctl: \(error)", status: ExitStatus.usage)
        }
        let status: CapabilityStatus
        if extend, let extending = capability as? any KeptLoginExtending,
            let extended = try? await extending.extendKeptLogin()
        {
            status = extended.status
        } else {
            let authorize = Authorize(capability)
            ProcedureQueue().addProcedure(authorize)
            status = (try? await authorize.value()) ?? .denied("the authorization was cancelled")
        }
        if options.json {
            print(
                JSONText.string(
                    JSONText.entry(
                        name: name, kind: policy.policy.capabilities[name]!.kind, status: status.kind.rawValue,
                        reason: status.reason, cause: status.cause?.name)))
        } else {
            print(TerminalText.escaped("\(name): \(status.kind.rawValue): \(status.reason)"))
        }
        let verdict = Verdict(status)
        Audit.record(
            AuditRecord(authorizing: name, status: status, policy: policy.policy, subject: nil), policy: policy.policy)
        if verdict != .authorized { throw verdict.exitStatus }
    }

    /// Ends kept logins: this terminal and session's (`--forget`) or all of this user's
    /// (`--forget-all`), in this user's records and, through capctld, in the ones it keeps.
    private func forgetKeptLogins(route: DecisionRoute) throws {
        let records = PolicyContext.keptLoginRecords()
        let removed =
            forgetAll
            ? records.forget(uid: geteuid())
            : KeptLoginRecords.currentScope().map { records.forget(uid: geteuid(), scope: $0) } ?? 0
        let which = forgetAll ? "" : " for this terminal and session"
        guard case .daemon(let capctld) = route else {
            print("forgot \(removed) kept login(s)\(which)")
            return
        }
        // capctld keeps the logins made through it in root's records: only it can end them.
        do throws(DecisionClient.Failure) {
            let removedByDaemon = try capctld.forget(everywhere: forgetAll)
            print("forgot \(removed + removedByDaemon) kept login(s)\(which) (\(removedByDaemon) kept by capctld)")
        } catch {
            throw CheckRequest.failure(error, capctld: capctld.path)
        }
    }

    /// The capability authorized by capctld for this process, its questions asked here; a login
    /// it keeps is kept by capctld, for the gates capctld decides.
    private func authorize(_ name: String, asking capctld: DecisionClient) throws {
        let conversation: any PAMConversation =
            password.passwordStdin ? StandardInputPassword() : TerminalPAMConversation(purpose: name)
        let decision: Decision
        var extendedFor: Duration?
        do throws(DecisionClient.Failure) {
            if extend {
                (decision, extendedFor) = try capctld.extend(capability: name, conversation: conversation)
            } else {
                decision = try capctld.authorize(capability: name, conversation: conversation)
            }
        } catch {
            throw CheckRequest.failure(error, capctld: capctld.path)
        }
        // A capability keeps its status's words; capctld words the authorization as a decision.
        let (verdict, status, reason): (Verdict, String, String) =
            switch decision.outcome {
            case .holds:
                (
                    .authorized, "authorized",
                    extendedFor.map { "kept login extended by capctld: good for \($0.components.seconds) s from now" }
                        ?? "authorized by capctld"
                )
            case .fails: (.denied, "denied", "capctld: denied")
            case .undecided: (.unavailable, "unavailable", "capctld: it could not be decided")
            case .needsInteraction: (.notDetermined, "notDetermined", "capctld: a login is needed and none was asked")
            case .dismissed: (.dismissed, "notDetermined", "the login was dismissed")
            }
        if options.json {
            var members: [String: FlagValue] = [
                "name": .string(name), "status": .string(status), "reason": .string(reason),
            ]
            members.merge(DecisionRoute.daemon(capctld).json) { first, _ in first }
            print(JSONText.string(.structure(members)))
        } else {
            print(TerminalText.escaped("\(name): \(status): \(reason)"))
        }
        if verdict != .authorized { throw verdict.exitStatus }
    }
}

extension PolicyOptions {
    /// Options for a command that may ask for a password: on the terminal, or from standard input.
    static func forPrompting(passwordFromStandardInput: Bool, purpose: String? = nil) -> PolicyOptions {
        PolicyOptions(
            pamConversation: passwordFromStandardInput
                ? StandardInputPassword() : TerminalPAMConversation(purpose: purpose),
            watchesFlagFiles: false, pollsFlagServices: false)
    }
}

/// Answers the first secret prompt with exactly one line of standard input (see ``SecretLine``:
/// nothing after the newline is consumed, so no part of the secret reaches a command run after
/// it); later prompts, end of input, an overlong line or a NUL dismiss the login.
struct StandardInputPassword: PAMConversation {
    private final class Used: @unchecked Sendable {
        // Only touched on the PAM transaction's thread.
        var value = false
    }

    private let used = Used()

    func answer(_ prompt: PAMMessage) -> PAMAnswer {
        guard !used.value else { return .cancel }
        used.value = true
        switch SecretLine.read(from: STDIN_FILENO) {
        case .line(let line):
            defer {
                explicit_bzero(line.baseAddress!, line.count)
                line.deallocate()
            }
            guard line.count > 1 else { return .cancel }
            return .secret(PAMSecret(copying: UnsafeBufferPointer(rebasing: line[..<(line.count - 1)])))
        case .tooLong:
            show(PAMMessage(style: .error, text: "capctl: the password line is longer than \(SecretLine.limit) bytes"))
            return .cancel
        case .containsNUL:
            show(PAMMessage(style: .error, text: "capctl: the password line contains a NUL byte"))
            return .cancel
        case .endOfInput, .failed:
            return .cancel
        }
    }

    func show(_ message: PAMMessage) {
        var bytes = Array((message.text + "\n").utf8)
        _ = bytes.withUnsafeMutableBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }
}
