public import Capabilities
import Glibc
import Plumbing

/// Whether polkit authorizes this process for an action (`org.example.backup.restore`), as
/// polkitd answers from the administrator's rules (Docs/Backends/Polkit.md).
///
/// ``status()`` asks without interaction: authorized; notDetermined when the person could be
/// authorized by authenticating (`auth_self`, `auth_admin`); denied otherwise; unavailable, failing
/// closed, when libsystemd, the system bus or polkitd is missing, the action is not registered, or
/// polkit refuses to answer. ``authorize()`` asks with interaction: for the check's duration it
/// registers an authentication agent for this process, which runs polkit's own helper with the
/// answers of a ``PAMConversation`` (the terminal by default). A dismissed authentication is
/// notDetermined with the dismissed cause; cancelling the task cancels the check in polkitd.
///
/// For a subject, polkit is asked about the subject's process, as `pkcheck --process` asks
/// (pid, start time and uid), without interaction: polkitd answers such checks only for root
/// and the action's owner. A subject without a process (a user by name) is unavailable.
///
/// ```swift
/// let restart = try PolkitAuthorization(action: "org.freedesktop.systemd1.manage-units", details: ["unit": "nginx.service"])
/// export.addCondition(AuthorizedFor(restart))
/// ```
public struct PolkitAuthorization: SubjectCapability {
    /// The action's identifier, as its `.policy` file declares it.
    public let action: String
    /// Details passed to polkit, which rules can read (`action.lookup("key")`). polkit answers
    /// checks with details only for trusted callers (root, or the action's owner).
    public let details: [String: String]
    /// Whether a temporary authorization from an `auth_*_keep` rule is reused while polkit keeps it.
    /// When false, it is revoked as soon as the authorization that created it is returned, so the
    /// next check asks again.
    public let keepsTemporaryAuthorization: Bool
    /// How long an interactive check may take, including the time a person takes to answer.
    public let interactionTimeout: Duration
    /// How long ``status()`` may take in all, connecting to the bus included.
    public let statusTimeout: Duration

    private let conversation: any PAMConversation
    private let libraryPath: String
    private var subject: Subject?

    /// An authorization for a polkit action.
    /// - Parameters:
    ///   - action: The action id: lowercase letters, digits, `.` and `-`, as polkit requires.
    ///   - details: Details for polkit's rules.
    ///   - conversation: Who answers polkit's authentication questions; by default the terminal.
    ///   - keepsTemporaryAuthorization: Whether polkit's kept authorizations are reused (default true).
    ///   - interactionTimeout: The limit for ``authorize()``; five minutes by default.
    ///   - statusTimeout: The limit for ``status()``; 25 seconds by default.
    ///   - library: The libsystemd to load sd-bus from; `libsystemd.so.0` by default.
    public init(
        action: String,
        details: [String: String] = [:],
        conversation: any PAMConversation = TerminalPAMConversation(),
        keepsTemporaryAuthorization: Bool = true,
        interactionTimeout: Duration = .seconds(300),
        statusTimeout: Duration = .seconds(25),
        library: String = "libsystemd.so.0"
    ) throws(CapabilityConfigurationError) {
        guard interactionTimeout > .zero, statusTimeout > .zero else {
            throw CapabilityConfigurationError("polkit timeouts must be positive")
        }
        try Self.checkActionID(action)
        for (key, value) in details where key.isEmpty || key.utf8.contains(0) || value.utf8.contains(0) {
            throw CapabilityConfigurationError("polkit detail \"\(key)\" must be a non-empty key and text without NUL")
        }
        if let reserved = details.keys.first(where: { $0.hasPrefix("polkit.") }) {
            throw CapabilityConfigurationError(
                "polkit detail \"\(reserved)\" is reserved: keys starting with \"polkit.\" change what polkit shows")
        }
        self.action = action
        self.details = details
        self.conversation = conversation
        self.keepsTemporaryAuthorization = keepsTemporaryAuthorization
        self.interactionTimeout = interactionTimeout
        self.statusTimeout = statusTimeout
        self.libraryPath = library
    }

    /// polkit's rule for action ids: lowercase ASCII letters, digits, `.` and `-`.
    static func checkActionID(_ action: String) throws(CapabilityConfigurationError) {
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789.-".utf8)
        guard !action.isEmpty, action.utf8.count <= 255, action.utf8.allSatisfy(allowed.contains),
            action.first != ".", action.first != "-"
        else {
            throw CapabilityConfigurationError(
                "\"\(action)\" is not a polkit action id (lowercase letters, digits, . and -, such as org.example.backup.restore)"
            )
        }
    }

    public var name: String { "polkit:\(action)" }

    /// The same action checked for `subject`'s process.
    public func forSubject(_ subject: Subject) -> any CapabilityType {
        var asked = self
        asked.subject = subject
        return asked
    }

    public var availability: CapabilityAvailability { SystemdBusLibrary.availability(at: libraryPath) }

    /// Asks polkitd without interaction.
    public func status() async throws -> CapabilityStatus {
        guard let library = SystemdBusLibrary.loaded(libraryPath) else { return SystemdBusLibrary.missing(libraryPath) }
        let action = action
        let details = details
        let keeps = keepsTemporaryAuthorization
        let timeout = statusTimeout
        let subjectName = subject?.description
        let polkitSubject: DBusValue?
        if let subject {
            guard let process = subject.process else {
                return .unavailable("polkit decides for processes, and \(subject) is none", cause: .misconfigured)
            }
            polkitSubject = PolkitSubject.process(pid: process.pid, startTime: process.startTime, uid: subject.uid)
        } else {
            polkitSubject = nil
        }
        let outcome = await BlockingWork.run {
            Self.check(
                action, details, subject: polkitSubject, subjectName: subjectName, keeps: keeps, timeout: timeout,
                library: library)
        }
        guard case .finished(let status) = outcome else { throw CancellationError() }
        return status
    }

    private static func check(
        _ action: String, _ details: [String: String], subject: DBusValue?, subjectName: String? = nil, keeps: Bool,
        timeout: Duration, library: SystemdBusLibrary
    ) -> CapabilityStatus {
        do throws(DBusError) {
            let deadline = ContinuousClock.now + timeout
            let connection = try DBusConnection(systemBusWith: library)
            let authority = try PolkitAuthority(on: connection, timeout: timeout)
            let asked: DBusValue
            if let subject { asked = subject } else { asked = try PolkitSubject.currentProcess() }
            let call = try authority.checkAuthorization(
                subject: asked, action: action, details: details, flags: 0,
                cancellationID: "")
            let left = max(.milliseconds(1), ContinuousClock.now.duration(to: deadline))
            let answer = try PolkitAuthority.Answer(reply: try connection.call(call, timeout: left))
            return status(
                of: answer, action: action, afterInteraction: false, failure: nil, keeps: keeps, who: subjectName)
        } catch {
            return status(of: error, action: action)
        }
    }

    /// Asks polkitd with interaction, through an agent of this process's own.
    /// For another subject, `status`, the answer just read: its authentication is not asked here.
    public func authorize(after status: CapabilityStatus) async throws -> CapabilityStatus {
        if subject != nil { return status }
        return try await authorize()
    }

    public func authorize() async throws -> CapabilityStatus {
        // Another subject's authentication is not asked on this process's terminal.
        if subject != nil { return try await status() }
        guard let library = SystemdBusLibrary.loaded(libraryPath) else { return SystemdBusLibrary.missing(libraryPath) }
        let wake = Wakeup()
        let request = InteractiveCheck(
            action: action, details: details, conversation: conversation, keeps: keepsTemporaryAuthorization,
            timeout: interactionTimeout, library: library, wake: wake)
        // Cancelling wakes the agent's loop, which then withdraws the request from polkitd.
        let outcome = await BlockingWork.run(interrupt: { wake.signal() }, { request.run() })
        guard case .finished(let status?) = outcome else { throw CancellationError() }
        return status
    }

    // MARK: Answers

    static func status(
        of answer: PolkitAuthority.Answer, action: String, afterInteraction: Bool, failure: String?, keeps: Bool,
        who: String? = nil
    ) -> CapabilityStatus {
        if answer.isAuthorized, !keeps, answer.temporaryAuthorization != nil {
            return .notDetermined(
                "polkit keeps an earlier authorization for \(action), which this capability does not reuse (keep: false)"
            )
        }
        if answer.isAuthorized {
            let kept = answer.temporaryAuthorization != nil ? " (kept by polkit for a while)" : ""
            return .authorized("polkit authorizes \(action)\(kept)")
        }
        if answer.wasDismissed {
            return .notDetermined("the polkit authentication for \(action) was dismissed", cause: .dismissed)
        }
        if answer.isChallenge {
            let reason =
                afterInteraction
                ? "polkit needs authentication for \(action), and no authentication agent answered"
                : "polkit would ask for authentication for \(action)"
            return .notDetermined(reason)
        }
        if afterInteraction, let failure {
            return .denied("polkit did not authorize \(action): \(failure)")
        }
        return .denied("polkit denies \(action) to \(who ?? "this process (uid \(getuid()))")")
    }

    static func status(of error: DBusError, action: String) -> CapabilityStatus {
        if error.name == DBusError.noLibrary { return .unavailable(error.message, cause: .backendMissing) }
        if error.meansServiceAbsent {
            return .unavailable("polkit is not running on the system bus: \(error)", cause: .backendMissing)
        }
        if [DBusConnection.untrustedBus, PolkitAuthority.untrustedPeer, SystemBusAddress.unacceptableAddress].contains(
            error.name)
        {
            return .unavailable(error.message, cause: .misconfigured)
        }
        if error.name == DBusError.noBus {
            return .unavailable("no system bus: \(error.message)", cause: .backendMissing)
        }
        if error.name == PolkitAuthority.failedError, error.message.contains("not registered") {
            return .unavailable("polkit has no action \(action) (no .policy file declares it)", cause: .resourceMissing)
        }
        if error.name == PolkitAuthority.notAuthorizedError {
            return .unavailable("polkit refuses to answer: \(error.message)", cause: .misconfigured)
        }
        return .unavailable("polkit could not answer for \(action): \(error)", cause: .error)
    }
}
