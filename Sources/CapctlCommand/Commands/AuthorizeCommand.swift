import ArgumentParser
import CapabilityPolicy
import Capabilities
import LinuxCapabilities
import ProcedureCore

#if canImport(Glibc)
import Glibc
#endif

/// `capctl authorize NAME`: runs a capability's authorization.
struct AuthorizeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "authorize",
        abstract: "Request authorization for a capability (for PAM: the password prompt).",
        discussion: "Exits 0 when authorized, 1 when denied or unavailable, 3 when the prompt was dismissed."
    )

    @OptionGroup var options: CommonOptions

    @Argument(help: "The capability's name in the policy.")
    var name: String

    @Option(name: .long, help: "The user to authenticate, for a PAM capability whose policy names none.")
    var user: String?

    @Flag(name: .long, help: "Read the password from one line of standard input instead of the terminal.")
    var passwordStdin = false

    func run() async throws {
        var policyOptions = PolicyOptions.forPrompting(passwordFromStandardInput: passwordStdin)
        policyOptions.pamUser = user
        let policy = try PolicyContext.load(options, policyOptions: policyOptions)
        let capability: any CapabilityType
        do {
            capability = try policy.capability(named: name)
        } catch {
            throw CommandFailure(message: "capctl: \(error)", status: ExitStatus.usage)
        }
        let authorize = Authorize(capability)
        ProcedureQueue().addProcedure(authorize)
        let status = (try? await authorize.value()) ?? .denied("the authorization was cancelled")
        if options.json {
            print(JSONText.string(JSONText.entry(name: name, kind: policy.policy.capabilities[name]!.specification.kind, status: status.kind.rawValue, reason: status.reason)))
        } else {
            print("\(name): \(status.kind.rawValue): \(status.reason)")
        }
        let exit = ExitStatus.of(status)
        if exit != ExitStatus.satisfied { throw exit }
    }
}

extension PolicyOptions {
    /// Options for a command that may ask for a password: on the terminal, or from standard input.
    static func forPrompting(passwordFromStandardInput: Bool) -> PolicyOptions {
        PolicyOptions(
            pamConversation: passwordFromStandardInput ? StandardInputPassword() : TerminalPAMConversation(),
            watchesFlagFiles: false)
    }
}

/// Answers the first secret prompt with one line of standard input, read straight into a
/// buffer that is zeroed after use; later prompts, and end of input, dismiss the login.
struct StandardInputPassword: PAMConversation {
    private final class Used: @unchecked Sendable {
        // Only touched on the PAM transaction's thread.
        var value = false
    }

    private let used = Used()

    func answer(_ prompt: PAMMessage) -> PAMAnswer {
        guard !used.value else { return .cancel }
        used.value = true
        let capacity = 1024
        let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: capacity)
        buffer.initialize(repeating: 0)
        defer {
            explicit_bzero(buffer.baseAddress!, capacity)
            buffer.deallocate()
        }
        var count = 0
        var byte: UInt8 = 0
        while count < capacity - 1, read(STDIN_FILENO, &byte, 1) == 1, byte != UInt8(ascii: "\n") {
            buffer[count] = byte
            count += 1
        }
        byte = 0
        guard count > 0 else { return .cancel }
        return .secret(PAMSecret(copying: UnsafeBufferPointer(rebasing: buffer[..<count])))
    }

    func show(_ message: PAMMessage) {
        var bytes = Array((message.text + "\n").utf8)
        _ = bytes.withUnsafeMutableBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }
}
