import CLinuxSupport
import Foundation
import Glibc
import LinuxBackends
import Locking
import TestSupport

/// A programmatic conversation that records what PAM asked and showed.
final class RecordingConversation: Sendable {
    private let log = Lock<[PAMMessage]>([])
    let password: String?

    init(password: String?) { self.password = password }

    var messages: [PAMMessage] { log.withLock { $0 } }
    var prompts: Int { messages.filter { $0.style == .secretPrompt || $0.style == .visiblePrompt }.count }

    var conversation: ProgrammaticPAMConversation {
        ProgrammaticPAMConversation(
            secret: { [self] in
                log.withLock { $0.append(PAMMessage(style: .secretPrompt, text: "")) }
                return password.map(PAMSecret.init)
            },
            onMessage: { [self] message in log.withLock { $0.append(message) } })
    }
}
