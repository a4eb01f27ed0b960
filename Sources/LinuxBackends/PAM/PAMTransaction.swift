import CPAM
import Capabilities
import Glibc

/// One PAM transaction: start, authenticate, check the account, optionally establish
/// credentials, end. Blocking; run it on a thread of its own.
struct PAMTransaction {
    let library: PAMLibrary
    let service: String
    let user: String
    let directory: String?
    let conversation: any PAMConversation
    let checksAccount: Bool
    let establishesCredentials: Bool
    /// How many times a wrong answer may be given (sudo's passwd_tries): after each but the last,
    /// the person is told "Sorry, try again." and asked again, in the same transaction.
    var tries: Int

    /// Where the conversation callback finds the Swift side. PAM calls it on the transaction's
    /// own thread, one call at a time.
    private final class Bridge: @unchecked Sendable {
        let conversation: any PAMConversation
        let user: String
        var dismissed = false
        var unanswerable: String?
        init(_ conversation: any PAMConversation, user: String) {
            (self.conversation, self.user) = (conversation, user)
        }
    }

    /// The stage a PAM call failed in, for the reason.
    enum Stage: String {
        case start = "starting the PAM transaction"
        case authenticate = "authentication"
        case account = "the account check"
        case credentials = "establishing credentials"
    }

    /// What sudo says after a wrong password, word for word: what people who type passwords know.
    static let tryAgain = "Sorry, try again."

    func run() -> CapabilityStatus {
        let bridge = Bridge(conversation, user: user)
        let context = Unmanaged.passRetained(bridge)
        defer { context.release() }
        var conversation = pam_conv(conv: Self.converse, appdata_ptr: context.toOpaque())
        var handle: OpaquePointer?
        let started: Int32
        if let directory {
            guard let startInDirectory = library.startInDirectory else {
                return .unavailable(
                    "this libpam has no pam_start_confdir (Linux-PAM 1.4 or later is needed for a service directory)",
                    cause: .backendMissing)
            }
            started = startInDirectory(service, user, &conversation, directory, &handle)
        } else {
            started = library.start(service, user, &conversation, &handle)
        }
        guard started == CPAM_SUCCESS, let handle else {
            return outcome(started, stage: .start, handle: nil, dismissed: false)
        }
        var code = library.authenticate(handle, 0)
        var triesLeft = tries - 1
        while code == CPAM_AUTH_ERR, triesLeft > 0, !bridge.dismissed {
            triesLeft -= 1
            bridge.conversation.show(PAMMessage(style: .error, text: Self.tryAgain))
            let again = library.authenticate(handle, 0)
            if bridge.dismissed {
                // Nobody answered the new question (end of input, a client that answers once):
                // the login ends with the wrong answer it had, not as dismissed.
                bridge.dismissed = false
                bridge.unanswerable = nil
                break
            }
            code = again
        }
        var stage = Stage.authenticate
        if code == CPAM_SUCCESS, checksAccount {
            code = library.accountManagement(handle, 0)
            stage = .account
        }
        var authenticatedUser = user
        if code == CPAM_SUCCESS {
            var item: UnsafeRawPointer?
            if library.getItem(handle, Int32(CPAM_USER), &item) == CPAM_SUCCESS, let item {
                authenticatedUser = String(cString: item.assumingMemoryBound(to: CChar.self))
            }
        }
        if code == CPAM_SUCCESS, establishesCredentials {
            code = library.setCredentials(handle, Int32(CPAM_ESTABLISH_CRED))
            stage = .credentials
        }
        var status = outcome(code, stage: stage, handle: handle, dismissed: bridge.dismissed)
        if let reason = bridge.unanswerable {
            status = .notDetermined(
                "dismissed: nobody could answer for \(user) via PAM service \(service): \(reason)", cause: .dismissed)
        }
        _ = library.end(handle, code)
        guard status.kind == .authorized else { return status }
        // A module may map the login to another user; that is not the user this capability is for.
        guard authenticatedUser == user else {
            return .denied("PAM service \(service) authenticated \(authenticatedUser), not \(user)")
        }
        return status
    }

    private func outcome(_ code: Int32, stage: Stage, handle: OpaquePointer?, dismissed: Bool) -> CapabilityStatus {
        let text = library.describeError(handle, code).map { String(cString: $0) } ?? "PAM error \(code)"
        let subject = "\(user) via PAM service \(service)"
        switch Int(code) {
        case Int(CPAM_SUCCESS) where !dismissed:
            return .authorized("\(user) authenticated via PAM service \(service)")
        case _ where dismissed:
            // However a module reports a cancelled conversation, the person dismissed the login.
            return .notDetermined("dismissed: the login for \(subject) was cancelled (\(text))", cause: .dismissed)
        case let refusal
        where stage == .account
            && [Int(CPAM_AUTH_ERR), Int(CPAM_PERM_DENIED), Int(CPAM_USER_UNKNOWN)].contains(refusal):
            // Access rules (sssd's access_provider, pam_succeed_if, nslcd's pam_authz_search)
            // refuse in the account stage, after the password was right.
            return .denied("account not permitted by the account check of PAM service \(service) for \(user): \(text)")
        case Int(CPAM_AUTH_ERR):
            return .denied("authentication failed for \(subject): \(text)")
        case Int(CPAM_USER_UNKNOWN):
            return .denied("unknown user: \(subject): \(text)")
        case Int(CPAM_ACCT_EXPIRED):
            return .denied("account expired: \(subject): \(text)")
        case Int(CPAM_NEW_AUTHTOK_REQD), Int(CPAM_AUTHTOK_EXPIRED):
            return .denied("new password required: \(subject): \(text)")
        case Int(CPAM_MAXTRIES):
            return .denied("too many tries: \(subject): \(text)")
        case Int(CPAM_PERM_DENIED):
            return .denied("permission denied: \(subject): \(text)")
        case Int(CPAM_CRED_INSUFFICIENT), Int(CPAM_CRED_UNAVAIL), Int(CPAM_CRED_EXPIRED), Int(CPAM_CRED_ERR):
            return .denied("credentials refused during \(stage.rawValue) for \(subject): \(text)")
        case Int(CPAM_OPEN_ERR), Int(CPAM_SYMBOL_ERR), Int(CPAM_SERVICE_ERR), Int(CPAM_MODULE_UNKNOWN):
            return .unavailable(
                "PAM service \(service) is broken (a module failed to load) during \(stage.rawValue): \(text)",
                cause: .misconfigured)
        case Int(CPAM_AUTHINFO_UNAVAIL):
            return .unavailable(
                "authentication information unavailable for \(subject) (is the directory reachable?): \(text)",
                cause: .backendUnreachable)
        default:
            return .denied("PAM failed during \(stage.rawValue) for \(subject): \(text)")
        }
    }

    /// PAM's conversation callback: answers every message through the Swift conversation.
    private static let converse:
        @convention(c) (
            Int32, UnsafeMutablePointer<UnsafePointer<pam_message>?>?,
            UnsafeMutablePointer<UnsafeMutablePointer<pam_response>?>?, UnsafeMutableRawPointer?
        ) -> Int32 = { count, messages, responses, context in
            guard count > 0, let messages, let responses, let context else { return Int32(CPAM_CONV_ERR) }
            let bridge = Unmanaged<Bridge>.fromOpaque(context).takeUnretainedValue()
            guard
                let replies = calloc(Int(count), MemoryLayout<pam_response>.stride)?
                    .assumingMemoryBound(to: pam_response.self)
            else { return Int32(CPAM_BUF_ERR) }
            func discard() {
                for index in 0..<Int(count) {
                    if let answer = replies[index].resp {
                        explicit_bzero(answer, strlen(answer))
                        free(answer)
                    }
                }
                free(replies)
            }
            for index in 0..<Int(count) {
                guard let message = messages[index]?.pointee else {
                    discard()
                    return Int32(CPAM_CONV_ERR)
                }
                let text = message.msg.map { String(cString: $0) } ?? ""
                switch message.msg_style {
                case Int32(CPAM_PROMPT_ECHO_OFF), Int32(CPAM_PROMPT_ECHO_ON):
                    let style: PAMMessage.Style =
                        message.msg_style == Int32(CPAM_PROMPT_ECHO_OFF) ? .secretPrompt : .visiblePrompt
                    let answer: UnsafeMutablePointer<CChar>?
                    let prompt = PAMMessage(style: style, text: text).withContext(user: bridge.user)
                    switch bridge.conversation.answer(prompt) {
                    case .secret(let secret): answer = secret.makeCString()
                    case .text(let visible): answer = strdup(visible)
                    case .cancel:
                        bridge.dismissed = true
                        discard()
                        return Int32(CPAM_CONV_ERR)
                    case .unanswerable(let reason):
                        bridge.dismissed = true
                        bridge.unanswerable = reason
                        discard()
                        return Int32(CPAM_CONV_ERR)
                    }
                    guard let answer else {
                        discard()
                        return Int32(CPAM_BUF_ERR)
                    }
                    replies[index].resp = answer
                case Int32(CPAM_ERROR_MSG):
                    bridge.conversation.show(PAMMessage(style: .error, text: text))
                case Int32(CPAM_TEXT_INFO):
                    bridge.conversation.show(PAMMessage(style: .info, text: text))
                default:
                    discard()
                    return Int32(CPAM_CONV_ERR)
                }
            }
            responses.pointee = replies
            return Int32(CPAM_SUCCESS)
        }
}
