/// A message PAM shows or a question it asks during a login.
///
/// ```swift
/// let conversation = ProgrammaticPAMConversation(
///     secret: { PAMSecret("secret") },
///     onMessage: { (message: PAMMessage) in print(message.style, message.text) })
/// _ = conversation
/// ```
public struct PAMMessage: Sendable, Hashable {
    /// What kind of message.
    public enum Style: Sendable, Hashable {
        /// A question whose answer must not be echoed (a password).
        case secretPrompt
        /// A question whose answer may be echoed (a user name, a one-time code shown on screen).
        case visiblePrompt
        /// An error to show.
        case error
        /// Information to show.
        case info
    }

    /// The kind.
    public var style: Style
    /// The text PAM gave, such as `Password: `.
    public var text: String

    /// Creates a message.
    public init(style: Style, text: String) {
        self.style = style
        self.text = text
    }
}

extension PAMMessage {
    /// Whose password a bare `Password: ` prompt (pam_unix's, sss's) asks for, as sudo says it:
    /// `[capctl] password for alice: `. Other prompts (a one-time code, a module's own wording)
    /// are left as the module wrote them.
    func withContext(user: String) -> PAMMessage {
        guard style == .secretPrompt, ["Password: ", "Password:"].contains(text) else { return self }
        return PAMMessage(style: style, text: "[capctl] password for \(user): ")
    }

    /// The prompt with what the password is for added (`[capctl] password for alice to
    /// restart-web: `), when it is the prompt capctl wrote for a bare `Password: `; otherwise as it is.
    ///
    /// ```swift
    /// let prompt = PAMMessage(style: .secretPrompt, text: "[capctl] password for alice: ")
    /// print(prompt.naming(purpose: "restart-web").text)  // [capctl] password for alice to restart-web:
    /// ```
    public func naming(purpose: String?) -> PAMMessage {
        guard let purpose, !purpose.isEmpty, style == .secretPrompt, text.hasPrefix("[capctl] password for "),
            text.hasSuffix(": "), !text.contains(" to ")
        else { return self }
        let clean = String(
            purpose.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }.prefix(80).map(Character.init))
        return PAMMessage(style: style, text: String(text.dropLast(2)) + " to \(clean): ")
    }
}

/// An answer to a PAM prompt.
public enum PAMAnswer: Sendable {
    /// A secret, for a `secretPrompt` (it may also answer a visible one).
    case secret(PAMSecret)
    /// Text for a `visiblePrompt`.
    case text(String)
    /// The person declined to answer: the login is dismissed (notDetermined), not denied.
    case cancel
    /// Nobody can answer here (no terminal, say), for the reason given: the login is dismissed,
    /// and the reason, which should say how to answer instead, is part of the status.
    case unanswerable(String)
}

/// Carries out PAM's side of a login conversation: answers prompts, shows messages.
///
/// Called on the thread running the PAM transaction, which is not a Swift concurrency thread,
/// so it may block (to read a terminal, for example).
public protocol PAMConversation: Sendable {
    /// Answers a prompt.
    func answer(_ prompt: PAMMessage) -> PAMAnswer
    /// Shows an error or information message.
    func show(_ message: PAMMessage)
}

/// Answers from a program: a secret for secret prompts (produced afresh for each prompt, so it
/// is held only as long as needed), optional text for visible prompts. Messages are collected
/// in `shown`, or passed to `onMessage`.
///
/// ```swift
/// // For a service that reads the password from its client rather than a terminal.
/// let login = try PAMLogin(
///     service: "myservice-admin", user: "alice",
///     conversation: ProgrammaticPAMConversation(secret: { readLine().map(PAMSecret.init) }))
/// export.addCondition(AuthorizedFor(login))
/// ```
public struct ProgrammaticPAMConversation: PAMConversation {
    private let secret: @Sendable () -> PAMSecret?
    private let visibleAnswer: @Sendable (String) -> String?
    private let onMessage: @Sendable (PAMMessage) -> Void

    /// - Parameters:
    ///   - secret: Produces the secret for each secret prompt; nil cancels the login.
    ///   - visibleAnswer: Answers a visible prompt given its text; nil (the default) cancels.
    ///   - onMessage: Receives error and information messages.
    public init(
        secret: @escaping @Sendable () -> PAMSecret?,
        visibleAnswer: @escaping @Sendable (String) -> String? = { _ in nil },
        onMessage: @escaping @Sendable (PAMMessage) -> Void = { _ in }
    ) {
        self.secret = secret
        self.visibleAnswer = visibleAnswer
        self.onMessage = onMessage
    }

    public func answer(_ prompt: PAMMessage) -> PAMAnswer {
        switch prompt.style {
        case .secretPrompt: return secret().map(PAMAnswer.secret) ?? .cancel
        default: return visibleAnswer(prompt.text).map(PAMAnswer.text) ?? .cancel
        }
    }

    public func show(_ message: PAMMessage) { onMessage(message) }
}
