import LinuxCapabilities

/// How a loaded policy builds its capabilities.
public struct PolicyOptions: Sendable {
    /// Who answers PAM's questions: the terminal unless told otherwise.
    public var pamConversation: any PAMConversation
    /// A user for every PAM capability that names none (`capctl authorize --user`).
    public var pamUser: String?
    /// Whether flag files are watched for changes.
    public var watchesFlagFiles: Bool

    /// Options with the terminal conversation, no user override, and watched flag files.
    public init(pamConversation: any PAMConversation = TerminalPAMConversation(), pamUser: String? = nil, watchesFlagFiles: Bool = true) {
        self.pamConversation = pamConversation
        self.pamUser = pamUser
        self.watchesFlagFiles = watchesFlagFiles
    }
}
