import Glibc
import LinuxBackends
import Plumbing
import Varlink

/// PAM's questions asked of a client through its `Authorize` call: each a reply that continues
/// (`question`), its answer an `Answer` call the same process makes on another connection.
/// Anything the client sends on the asking connection meanwhile, its closing, or silence past
/// ``ClientPAMConversation/answerTimeout`` dismisses the login; so does an answer that is longer
/// than ``ClientPAMConversation/answerLimit`` bytes, holds a NUL, or (for a visible question) a
/// control character. It is never denied on the client's behalf, and never passed.
struct VarlinkLoginConversation: PAMConversation {
    let login: PendingLogin
    let replies: VarlinkReplies
    /// The asking connection, watched for the client going away.
    let connection: LineConnection
    /// What the login is for (the gate or capability asked), named in capctl's prompt.
    var purpose: String?

    func answer(_ prompt: PAMMessage) -> PAMAnswer {
        login.expectAnswer()
        guard send(prompt.naming(purpose: purpose)) else { return .unanswerable("the client went away") }
        let deadline = ContinuousClock.now + .seconds(ClientPAMConversation.answerTimeout)
        while true {
            let read = connection.readLine(
                limit: 0, until: deadline, interrupt: login.arrived.descriptor, terminator: 0)
            guard case .interrupted = read else {
                // The connection is no longer varlink's once a byte of it was read here.
                replies.closeConnectionAfterReply()
                return .unanswerable(
                    read == .timedOut
                        ? "the client gave no answer in \(ClientPAMConversation.answerTimeout) s"
                        : "the client closed or wrote on the asking connection")
            }
            login.arrived.take()
            guard let answer = login.takeAnswer() else { continue }
            return Self.checked(answer, secret: prompt.style == .secretPrompt)
        }
    }

    func show(_ message: PAMMessage) {
        _ = send(message)
    }

    private func send(_ message: PAMMessage) -> Bool {
        do throws(VarlinkError) {
            try replies.replyContinuing([("question", LoginQuestion(login: login.token, message: message).value)])
        } catch {
            return false
        }
        return !replies.clientIsGone
    }

    /// An answer as PAM gets it: what the line relay accepts, and nothing else.
    static func checked(_ answer: String?, secret: Bool) -> PAMAnswer {
        guard let answer else { return .cancel }
        guard answer.utf8.count <= ClientPAMConversation.answerLimit else {
            return .unanswerable("the client's answer is longer than \(ClientPAMConversation.answerLimit) bytes")
        }
        guard !answer.utf8.contains(0) else { return .unanswerable("the client's answer holds a NUL byte") }
        if secret { return .secret(PAMSecret(answer)) }
        guard !answer.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            return .unanswerable("the client's answer is not a line of text")
        }
        return .text(answer)
    }
}
