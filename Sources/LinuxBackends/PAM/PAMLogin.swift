public import Capabilities
import ConfigurationFiles
import Glibc
import Plumbing

/// A login through PAM: authorized once a PAM transaction for a service and a user succeeds
/// (`pam_authenticate`, then `pam_acct_mgmt`).
///
/// `status()` never prompts: it is notDetermined ("would ask") while nothing is kept, and
/// unavailable when libpam or the service file is missing. `authorize()` runs the transaction,
/// asking through the conversation (the terminal by default). To keep a successful login for
/// a while, as sudo does, wrap it: `PAMLogin(...).keepingAuthorization(for: .seconds(300))`.
///
/// Statuses from PAM's answers: wrong password, unknown user, expired account, new password
/// required, too many tries and permission denied are denied, each with that reason; a
/// service that fails to load a module is unavailable; a conversation the person cancelled
/// is notDetermined (dismissed).
///
/// ```swift
/// let login = try PAMLogin(service: "myservice-admin", user: "alice")  // asks on the terminal
/// export.addCondition(AuthorizedFor(login.keepingAuthorization(for: .seconds(300))))
/// ```
public struct PAMLogin: CapabilityType {
    /// The PAM service: the name of a file in /etc/pam.d or in the service directory, which
    /// must exist (PAM's `other` fallback is never used unless named).
    public let service: String
    /// The user to authenticate.
    public let user: String
    /// A directory of service files used instead of /etc/pam.d (`pam_start_confdir`), or nil.
    public let serviceDirectory: String?
    /// Whether `pam_acct_mgmt` runs after authentication (expired accounts, access rules). Default true.
    public let checksAccount: Bool
    /// Whether `pam_setcred` establishes credentials after success; some modules change this
    /// process's groups or keys then. Default false.
    public let establishesCredentials: Bool
    /// How long ``authorize()`` waits for the transaction, including the time a person takes to
    /// answer. Past it the login is unavailable (an error, so no gate passes on it); the
    /// transaction's thread is left to finish on its own, as a stuck module cannot be interrupted.
    public let timeout: Duration
    /// How many answers a person may give before a wrong password fails the login (sudo's
    /// passwd_tries): after each wrong one but the last they are told "Sorry, try again." and
    /// asked again. 3 by default; 1 to 10.
    public let tries: Int
    /// The most ``tries`` accepted.
    public static let maximumTries = 10

    private let conversation: any PAMConversation
    private let libraryPath: String
    /// Whether the user was named, rather than taken from whoever is asked about.
    private let userIsNamed: Bool
    /// Whether the process this login is asked for runs as root: its status says root is asked
    /// like anyone, which polkit's and sudo's users do not expect.
    private let asksRoot: Bool

    /// A PAM login.
    /// - Parameters:
    ///   - service: The PAM service name, such as `login` or `myservice`: lowercase, as the file is named.
    ///   - user: The user; by default the user this process runs as.
    ///   - serviceDirectory: An absolute directory of service files to use instead of /etc/pam.d.
    ///   - conversation: Who answers PAM's questions; by default the controlling terminal.
    ///   - checksAccount: Whether to run the account check after authentication.
    ///   - establishesCredentials: Whether to call `pam_setcred(PAM_ESTABLISH_CRED)` on success.
    ///   - timeout: The limit for ``authorize()``; five minutes by default.
    ///   - tries: How many answers may be given (1 to ``maximumTries``; 3, as sudo's default).
    ///   - library: The libpam to load; `libpam.so.0` by default.
    public init(
        service: String,
        user: String? = nil,
        serviceDirectory: String? = nil,
        conversation: any PAMConversation = TerminalPAMConversation(),
        checksAccount: Bool = true,
        establishesCredentials: Bool = false,
        timeout: Duration = .seconds(300),
        tries: Int = 3,
        library: String = "libpam.so.0"
    ) throws(CapabilityConfigurationError) {
        guard (1...Self.maximumTries).contains(tries) else {
            throw CapabilityConfigurationError("a PAM login's tries must be 1 to \(Self.maximumTries), got \(tries)")
        }
        guard timeout > .zero else {
            throw CapabilityConfigurationError("a PAM login's timeout must be positive, got \(timeout)")
        }
        try Self.checkServiceName(service)
        if let serviceDirectory, !serviceDirectory.hasPrefix("/") {
            throw CapabilityConfigurationError(
                "a PAM service directory must be an absolute path, got \"\(serviceDirectory)\"")
        }
        userIsNamed = user != nil
        asksRoot = geteuid() == 0
        let user = user ?? ProcessIdentity.current().effectiveUser.name ?? ""
        guard !user.isEmpty, !user.utf8.contains(0) else {
            throw CapabilityConfigurationError("a PAM login needs a user name")
        }
        self.service = service
        self.user = user
        self.serviceDirectory = serviceDirectory
        self.conversation = conversation
        self.checksAccount = checksAccount
        self.establishesCredentials = establishesCredentials
        self.timeout = timeout
        self.tries = tries
        self.libraryPath = library
    }

    public var name: String { "pam:\(service):\(user)" }

    public var availability: CapabilityAvailability {
        switch PAMLibrary.load(libraryPath) {
        case .success(let library):
            if serviceDirectory != nil, library.startInDirectory == nil {
                return .unavailable(
                    reason:
                        "\(libraryPath) has no pam_start_confdir (Linux-PAM 1.4 or later is needed for a service directory)"
                )
            }
            return .available
        case .failure(let error):
            return .unavailable(reason: error.description)
        }
    }

    /// notDetermined while the service exists: only asking can tell. Never prompts.
    /// Runs on a thread of its own: checking the service file walks its directories
    /// (`TrustedFile`), and libpam is loaded the first time.
    public func status() async throws -> CapabilityStatus {
        let capability = self
        return try await BlockingWork.value { capability.currentStatus() }
    }

    private func currentStatus() -> CapabilityStatus {
        if case .unavailable(let reason) = availability { return .unavailable(reason) }
        // Linux-PAM runs the `other` stack when the service file is missing: never let that happen
        // by accident. The file must exist where libpam looks first, and be trusted like a policy.
        let file = (serviceDirectory ?? Self.systemDirectory) + "/" + service
        do throws(TrustedFile.Refusal) {
            try TrustedFile.check(file: file)
        } catch {
            if error.isMissing { return .unavailable("no PAM service file \(file)", cause: .misconfigured) }
            return .unavailable("PAM service file \(file) is not trusted: \(error.reason)", cause: .misconfigured)
        }
        // A module that is not installed fails only once someone is asked: tell before.
        let stacks: Set<String> = checksAccount ? ["auth", "account"] : ["auth"]
        if let problem = PAMServiceFile.firstProblem(
            service: service, directory: serviceDirectory ?? Self.systemDirectory, types: stacks)
        {
            return .unavailable(problem, cause: .misconfigured)
        }
        let root = asksRoot ? "; root is asked like anyone (a capctl policy's root: pass lets root through)" : ""
        return .notDetermined("PAM service \(service) will ask \(user) to authenticate\(root)")
    }

    /// Where libpam reads service files when no directory is given. Vendor directories
    /// (/usr/lib/pam.d) are not searched by every build of libpam, so a service only there
    /// needs an explicit service directory.
    static let systemDirectory = "/etc/pam.d"

    /// Linux-PAM lowercases the service name and falls back to `other` when no file matches, so
    /// only names that it maps to themselves, and that name a file in the directory, are accepted.
    static func checkServiceName(_ service: String) throws(CapabilityConfigurationError) {
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789-_.+@:".utf8)
        guard !service.isEmpty, service != ".", service != "..", service.utf8.allSatisfy(allowed.contains) else {
            throw CapabilityConfigurationError(
                "\"\(service)\" is not a usable PAM service name: Linux-PAM lowercases names and falls back to the"
                    + " \"other\" service, so use the service file's exact name (lowercase letters, digits and - _ . + @ :)"
            )
        }
    }

    /// Runs the PAM transaction on a thread of its own (it blocks while a person types), for at
    /// most ``timeout``; cancelling the calling task stops the wait.
    public func authorize() async throws -> CapabilityStatus {
        try await authorize(after: try await status())
    }

    /// Runs the transaction when `current`, the status just read, is notDetermined; otherwise
    /// returns it (the service file was checked by that read, and is not walked again).
    public func authorize(after current: CapabilityStatus) async throws -> CapabilityStatus {
        guard current.kind == .notDetermined, case .success(let library) = PAMLibrary.load(libraryPath) else {
            return current
        }
        let transaction = PAMTransaction(
            library: library, service: service, user: user, directory: serviceDirectory, conversation: conversation,
            checksAccount: checksAccount, establishesCredentials: establishesCredentials, tries: tries)
        switch await BlockingWork.run(deadline: .now + timeout, { transaction.run() }) {
        case .finished(let status):
            return status
        case .timedOut:
            return .unavailable(
                "the PAM transaction for \(user) via service \(service) did not finish within \(timeout)", cause: .error
            )
        case .cancelled:
            // The conversation may still wait for an answer on its thread; nobody acts on what it decides.
            throw CancellationError()
        }
    }

}

extension PAMLogin: SubjectCapability {
    /// Who answers PAM's questions for the subjects capabilities are made for while it is set:
    /// `ServeClientRequest` (module `LinuxPolicy`) sets it to its client's connection around building its gate, so a
    /// prompt goes to the client, never to this service's terminal.
    @TaskLocal public static var subjectConversation: (any PAMConversation)?

    /// The login asked of `subject`, answered by ``subjectConversation``.
    public func forSubject(_ subject: Subject) -> any CapabilityType {
        forSubject(subject, conversation: Self.subjectConversation)
    }

    /// The login asked of `subject`: the user the capability names (an administrator, as
    /// polkit's `auth_admin`), or else the subject's own user (`auth_self`), with the questions
    /// going to `conversation`, the client. With no conversation nobody can answer: a stack that
    /// asks is dismissed, never typed on this process's terminal.
    public func forSubject(_ subject: Subject, conversation: (any PAMConversation)?) -> any CapabilityType {
        let user: String
        if userIsNamed {
            user = self.user
        } else if let name = subject.userName, !name.isEmpty, !name.utf8.contains(0) {
            user = name
        } else {
            return SubjectWithoutUser(name: name, subject: subject)
        }
        return PAMLogin(
            copying: self, user: user, asksRoot: subject.uid == 0,
            conversation: conversation ?? UnansweredConversation(reason: "nobody can answer for \(subject) here"))
    }

    private init(copying login: PAMLogin, user: String, asksRoot: Bool, conversation: any PAMConversation) {
        self.asksRoot = asksRoot
        service = login.service
        self.user = user
        serviceDirectory = login.serviceDirectory
        checksAccount = login.checksAccount
        establishesCredentials = login.establishesCredentials
        timeout = login.timeout
        tries = login.tries
        self.conversation = conversation
        libraryPath = login.libraryPath
        userIsNamed = true
    }
}

/// A conversation with nobody: every prompt is unanswerable, for the reason given.
private struct UnansweredConversation: PAMConversation {
    let reason: String
    func answer(_ prompt: PAMMessage) -> PAMAnswer { .unanswerable(reason) }
    func show(_ message: PAMMessage) {}
}

/// A login for a subject whose uid has no user name: there is no one to authenticate.
private struct SubjectWithoutUser: CapabilityType {
    let name: String
    let subject: Subject

    func status() async throws -> CapabilityStatus { currentStatus }
    func knownStatus() -> CapabilityStatus? { currentStatus }

    private var currentStatus: CapabilityStatus {
        .unavailable("\(subject) has no user name to authenticate through PAM", cause: .misconfigured)
    }
}
