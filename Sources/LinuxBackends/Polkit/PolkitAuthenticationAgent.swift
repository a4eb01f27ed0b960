import Glibc
import SystemPackage

/// A polkit authentication agent for this process alone, registered while one interactive
/// check runs: when polkitd needs the person to authenticate, it calls `BeginAuthentication`
/// here, and the agent runs polkit's helper with the answers of a ``PAMConversation`` (the
/// terminal by default, as `pkttyagent` does; or a program's answers).
///
/// It runs on the connection's thread and handles one authentication at a time, as polkitd
/// asks for one per check.
final class PolkitAuthenticationAgent {
    static let objectPath = "/org/freedesktop/PolicyKit1/AuthenticationAgent"
    private static let agentInterface = "org.freedesktop.PolicyKit1.AuthenticationAgent"

    private let authority: PolkitAuthority
    private var connection: DBusConnection { authority.connection }
    private let conversation: any PAMConversation
    private let subject: DBusValue
    private var registered = false
    /// How the last authentication ended, for the reason of a denial.
    private(set) var lastFailure: String?
    /// Whether a person authenticated through this agent.
    private(set) var authenticated = false

    /// A descriptor that becomes readable when the check is cancelled.
    /// Polled, not owned: the caller's.
    private let interrupt: FileDescriptor?

    init(authority: PolkitAuthority, subject: DBusValue, conversation: any PAMConversation, interrupt: FileDescriptor?)
    {
        self.authority = authority
        self.subject = subject
        self.conversation = conversation
        self.interrupt = interrupt
    }

    /// Registers the agent for this process's subject. Fails when another agent already serves it.
    func register() throws(DBusError) {
        try connection.exportObject(path: Self.objectPath) { [unowned self] call in handle(call) }
        let call = try authority.methodCall(
            "RegisterAuthenticationAgent", [subject, .string(Self.locale), .string(Self.objectPath)])
        _ = try connection.call(call, timeout: .seconds(25))
        registered = true
    }

    func unregister() {
        guard registered else { return }
        registered = false
        guard
            let call = try? authority.methodCall("UnregisterAuthenticationAgent", [subject, .string(Self.objectPath)])
        else { return }
        _ = try? connection.call(call, timeout: .seconds(5))
    }

    /// The locale polkit translates its messages into, from the environment as for any program.
    private static var locale: String {
        for name in ["LC_ALL", "LC_MESSAGES", "LANG"] {
            if let value = getenv(name).map({ String(cString: $0) }), !value.isEmpty { return value }
        }
        return "C"
    }

    private func handle(_ call: DBusMessage) -> Bool {
        // Only the verified polkitd may ask this agent for a password; any other client is refused.
        guard call.sender == authority.peer else {
            try? connection.replyError(
                to: call, name: PolkitAuthority.notAuthorizedError, message: "only polkitd may call this agent")
            return true
        }
        switch call.member {
        case "BeginAuthentication":
            guard let values = try? call.readAll() else {
                try? connection.replyError(
                    to: call, name: PolkitAuthority.failedError,
                    message: "BeginAuthentication's arguments are unreadable")
                return true
            }
            beginAuthentication(call, values)
            return true
        case "CancelAuthentication":
            // Authentications run to their end before the next call is read, so none is in progress.
            try? connection.reply(to: call)
            return true
        default:
            return false
        }
    }

    /// `BeginAuthentication(s action_id, s message, s icon_name, a{ss} details, s cookie, a(sa{sv}) identities)`.
    private func beginAuthentication(_ call: DBusMessage, _ values: [DBusValue]) {
        guard values.count == 6, let action = values[0].stringValue, let message = values[1].stringValue,
            let cookie = values[4].stringValue, case .array(_, let identities) = values[5]
        else {
            try? connection.replyError(
                to: call, name: PolkitAuthority.failedError, message: "BeginAuthentication's arguments are malformed")
            return
        }
        let users = identities.compactMap { identity -> UInt32? in
            guard let members = identity.members, members.count == 2, members[0].stringValue == "unix-user",
                let uid = members[1].dictionary?["uid"]?.unsignedValue, uid <= UInt64(UInt32.max)
            else { return nil }
            return UInt32(uid)
        }
        // The person at this process authenticates as themselves when polkit allows it (auth_self),
        // otherwise as the first administrator polkit names (auth_admin).
        guard let uid = users.first(where: { $0 == getuid() }) ?? users.first,
            let user = ProcessIdentity.user(uid).name
        else {
            lastFailure = "polkit named no user who could authenticate"
            try? connection.replyError(to: call, name: PolkitAuthority.failedError, message: lastFailure!)
            return
        }
        guard let helper = PolkitAgentHelper.installed() else {
            lastFailure = "polkit's helper (polkit-agent-helper-1) is not installed"
            try? connection.replyError(to: call, name: PolkitAuthority.failedError, message: lastFailure!)
            return
        }
        conversation.show(PAMMessage(style: .info, text: "polkit: \(message) (\(action))"))
        conversation.show(PAMMessage(style: .info, text: "Authenticating as \(user)"))
        switch helper.authenticate(user: user, cookie: cookie, conversation: conversation, interrupt: interrupt) {
        case .authenticated:
            lastFailure = nil
            authenticated = true
            try? connection.reply(to: call)
        case .failed(let reason):
            lastFailure = reason
            try? connection.reply(to: call)
        case .dismissed:
            lastFailure = nil
            try? connection.replyError(
                to: call, name: PolkitAuthority.cancelledError, message: "the authentication was dismissed")
        }
    }
}
