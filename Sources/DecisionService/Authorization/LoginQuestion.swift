import LinuxBackends
import Varlink

/// A question (or message) of a login asked through `Authorize`, as the interface's `Question`:
/// the one encoder the service uses and the one decoder ``DecisionClient`` uses.
struct LoginQuestion: Equatable {
    /// The login it belongs to, which `Answer` names.
    let login: String
    /// What PAM asked or said.
    let message: PAMMessage

    /// The interface's word for each kind of message.
    private static let kinds: [(PAMMessage.Style, String)] = [
        (.secretPrompt, "secret"), (.visiblePrompt, "visible"), (.error, "error"), (.info, "info"),
    ]

    var value: VarlinkValue {
        let kind = Self.kinds.first { $0.0 == message.style }!.1
        return .object([("login", .string(login)), ("kind", .string(kind)), ("text", .string(message.text))])
    }

    init(login: String, message: PAMMessage) {
        (self.login, self.message) = (login, message)
    }

    /// The question in a reply; nil when it is not one.
    init?(_ value: VarlinkValue) {
        guard case .string(let login)? = value["login"], case .string(let kind)? = value["kind"],
            let style = Self.kinds.first(where: { $0.1 == kind })?.0, case .string(let text)? = value["text"]
        else { return nil }
        self.init(login: login, message: PAMMessage(style: style, text: text))
    }
}
