import Glibc

/// PAM's questions relayed to a service's client over its connection, so the client's person
/// answers them, never the service's terminal. Before the reply line, the service sends each
/// message as a line (`PAMMessage.relayLine`, which `PAMMessage(relayLine:)` reads back):
///
/// - `pam-secret: TEXT`: a question whose answer must not be echoed (a password); the client
///   answers with one line;
/// - `pam-prompt: TEXT`: a question whose answer may be echoed; the client answers with one line;
/// - `pam-error: TEXT` and `pam-info: TEXT`: messages to show, with no answer.
///
/// An answer is at most ``answerLimit`` bytes (Linux-PAM's `PAM_MAX_RESP_SIZE`), without NUL
/// bytes; a visible one is UTF-8 text without control characters. A longer or malformed answer,
/// a client that closes the connection or does not answer within ``answerTimeout`` seconds
/// dismisses the login (notDetermined): it is never denied on the client's behalf, and never passed.
/// A secret answer is read into memory that is zeroed once PAM has its copy.
public struct ClientPAMConversation: PAMConversation {
    /// The longest answer, in bytes.
    public static let answerLimit = 512
    /// How long a person has to answer one question, in seconds.
    public static let answerTimeout = 120

    let connection: ClientConnection

    public func answer(_ prompt: PAMMessage) -> PAMAnswer {
        let secret = prompt.style == .secretPrompt
        guard connection.send(prompt.relayLine) else {
            return .unanswerable("the client went away")
        }
        let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: Self.answerLimit)
        buffer.initialize(repeating: 0)
        defer {
            explicit_bzero(buffer.baseAddress!, buffer.count)
            buffer.deallocate()
        }
        guard let count = connection.readAnswer(into: buffer, waiting: Self.answerTimeout) else {
            return .unanswerable(
                "the client gave no answer (closed, silent for \(Self.answerTimeout) s, or longer than \(Self.answerLimit) bytes)"
            )
        }
        let answer = UnsafeBufferPointer(rebasing: buffer[..<count])
        guard !answer.contains(0) else { return .unanswerable("the client's answer holds a NUL byte") }
        if secret { return .secret(PAMSecret(copying: answer)) }
        guard let text = String(validating: answer, as: UTF8.self),
            !text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
        else { return .unanswerable("the client's answer is not a line of text") }
        return .text(text)
    }

    public func show(_ message: PAMMessage) {
        _ = connection.send(message.relayLine)
    }
}
