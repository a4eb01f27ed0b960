import LinuxBackends
import Locking

/// A conversation that remembers why it could not answer (no terminal, end of input), so that a
/// login capctld reports as dismissed can be explained to the person asking by what happened
/// here: their own part, which capctld's explanation (root's alone) would not tell them.
final class ConversationRecorder: PAMConversation, Sendable {
    private let conversation: any PAMConversation
    private let reason = Lock<String?>(nil)

    init(_ conversation: any PAMConversation) {
        self.conversation = conversation
    }

    /// Why the last question went unanswered here, if one did.
    var unanswerable: String? { reason.withLock { $0 } }

    func answer(_ prompt: PAMMessage) -> PAMAnswer {
        let answer = conversation.answer(prompt)
        if case .unanswerable(let why) = answer { reason.withLock { $0 = why } }
        return answer
    }

    func show(_ message: PAMMessage) {
        conversation.show(message)
    }
}
