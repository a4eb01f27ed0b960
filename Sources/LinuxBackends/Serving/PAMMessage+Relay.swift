/// A PAM message as a line a service sends its client before the reply (``ClientPAMConversation``):
/// the one encoder a service uses and the one decoder a client uses.
///
/// ```swift
/// let line = PAMMessage(style: .secretPrompt, text: "Password: ").relayLine  // "pam-secret: Password: "
/// if let message = PAMMessage(relayLine: line), message.style == .secretPrompt {
///     print("asked: \(message.text)")  // read a password without echo, send it as one line
/// }
/// ```
extension PAMMessage {
    /// Each style's prefix on the line.
    private static let prefixes: [(Style, String)] = [
        (.secretPrompt, "pam-secret: "), (.visiblePrompt, "pam-prompt: "), (.error, "pam-error: "),
        (.info, "pam-info: "),
    ]

    /// The message as one line, without its line feed: `pam-secret: `, `pam-prompt: `,
    /// `pam-error: ` or `pam-info: ` and the text.
    public var relayLine: String {
        Self.prefixes.first { $0.0 == style }!.1 + text
    }

    /// The message a relayed line holds; nil when the line is not one (the service's reply).
    /// - Parameter line: One line the service sent, without its line feed.
    public init?(relayLine line: String) {
        guard let (style, prefix) = Self.prefixes.first(where: { line.hasPrefix($0.1) }) else { return nil }
        self.init(style: style, text: String(line.dropFirst(prefix.count)))
    }
}
