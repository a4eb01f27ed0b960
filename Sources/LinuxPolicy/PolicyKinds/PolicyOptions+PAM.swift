public import CapabilityPolicy
public import LinuxBackends

extension PolicyOptions {
    private enum PAMConversationKey: PolicyOptionKey {
        static var defaultValue: any PAMConversation { TerminalPAMConversation() }
    }

    private enum PAMUserKey: PolicyOptionKey {
        static var defaultValue: String? { nil }
    }

    /// Who answers PAM's questions: the terminal unless told otherwise.
    public var pamConversation: any PAMConversation {
        get { self[PAMConversationKey.self] }
        set { self[PAMConversationKey.self] = newValue }
    }

    private enum KeptRecordsKey: PolicyOptionKey {
        static var defaultValue: KeptLoginRecords? { nil }
    }

    /// Where logins with `keep:` are kept across processes (`KeptLoginRecords`, from LinuxBackends); nil keeps
    /// them in this process only.
    public var keptLoginRecords: KeptLoginRecords? {
        get { self[KeptRecordsKey.self] }
        set { self[KeptRecordsKey.self] = newValue }
    }

    /// A user for every PAM capability that names none (`capctl authorize --user`).
    public var pamUser: String? {
        get { self[PAMUserKey.self] }
        set { self[PAMUserKey.self] = newValue }
    }

    /// Options with a PAM conversation (and user), whether flag files are watched and whether
    /// flag services are polled.
    public init(
        pamConversation: any PAMConversation, pamUser: String? = nil, watchesFlagFiles: Bool = true,
        pollsFlagServices: Bool = true
    ) {
        self.init(watchesFlagFiles: watchesFlagFiles, pollsFlagServices: pollsFlagServices)
        self.pamConversation = pamConversation
        self.pamUser = pamUser
    }
}
