import CLinuxSupport
public import Capabilities
import Dispatch
import Glibc
import Synchronization

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
public struct PolkitAuthorization: CapabilityType {
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

    private let conversation: any PAMConversation
    private let libraryPath: String

    /// An authorization for a polkit action.
    /// - Parameters:
    ///   - action: The action id: lowercase letters, digits, `.` and `-`, as polkit requires.
    ///   - details: Details for polkit's rules.
    ///   - conversation: Who answers polkit's authentication questions; by default the terminal.
    ///   - keepsTemporaryAuthorization: Whether polkit's kept authorizations are reused (default true).
    ///   - interactionTimeout: The limit for ``authorize()``; five minutes by default.
    ///   - library: The libsystemd to load sd-bus from; `libsystemd.so.0` by default.
    public init(
        action: String,
        details: [String: String] = [:],
        conversation: any PAMConversation = TerminalPAMConversation(),
        keepsTemporaryAuthorization: Bool = true,
        interactionTimeout: Duration = .seconds(300),
        library: String = "libsystemd.so.0"
    ) throws(CapabilityConfigurationError) {
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

    public var availability: CapabilityAvailability { SystemdBusLibrary.availability(at: libraryPath) }

    /// Asks polkitd without interaction.
    public func status() async throws -> CapabilityStatus {
        let library: SystemdBusLibrary
        switch SystemdBusLibrary.load(libraryPath) {
        case .success(let loaded): library = loaded
        case .failure(let error): return .unavailable(error.description, cause: .backendMissing)
        }
        let action = action
        let details = details
        let keeps = keepsTemporaryAuthorization
        return await withCheckedContinuation { continuation in
            Self.checks.async {
                continuation.resume(returning: Self.check(action, details, keeps: keeps, library: library))
            }
        }
    }

    private static func check(_ action: String, _ details: [String: String], keeps: Bool, library: SystemdBusLibrary)
        -> CapabilityStatus
    {
        do throws(DBusError) {
            let connection = try DBusConnection(systemBusWith: library)
            let call = try PolkitAuthority.checkAuthorization(
                on: connection, subject: try PolkitSubject.currentProcess(), action: action, details: details,
                flags: 0, cancellationID: "")
            let answer = try PolkitAuthority.Answer(reply: try connection.call(call, timeout: .seconds(25)))
            return status(of: answer, action: action, afterInteraction: false, failure: nil, keeps: keeps)
        } catch {
            return status(of: error, action: action)
        }
    }

    /// Asks polkitd with interaction, through an agent of this process's own.
    public func authorize() async throws -> CapabilityStatus {
        let library: SystemdBusLibrary
        switch SystemdBusLibrary.load(libraryPath) {
        case .success(let loaded): library = loaded
        case .failure(let error): return .unavailable(error.description, cause: .backendMissing)
        }
        let wake = Wakeup()
        let request = InteractiveCheck(
            action: action, details: details, conversation: conversation, keeps: keepsTemporaryAuthorization,
            timeout: interactionTimeout, library: library, wake: wake)
        let status = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                Self.checks.async { continuation.resume(returning: request.run()) }
            }
        } onCancel: {
            wake.signal()
        }
        if status == nil { throw CancellationError() }
        return status!
    }

    /// A queue of its own: each check waits on a thread of its own, none on Swift's cooperative pool.
    private static let checks = DispatchQueue(label: "LinuxBackends.Polkit", attributes: .concurrent)

    // MARK: Answers

    static func status(
        of answer: PolkitAuthority.Answer, action: String, afterInteraction: Bool, failure: String?, keeps: Bool
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
        return .denied("polkit denies \(action) to this process (uid \(getuid()))")
    }

    static func status(of error: DBusError, action: String) -> CapabilityStatus {
        if error.name == DBusError.noLibrary { return .unavailable(error.message, cause: .backendMissing) }
        if error.meansServiceAbsent {
            return .unavailable("polkit is not running on the system bus: \(error)", cause: .backendMissing)
        }
        if error.name == DBusConnection.untrustedBus {
            return .unavailable(error.message, cause: .misconfigured)
        }
        if error.name == DBusError.local, error.message.hasPrefix("cannot connect") {
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

/// One interactive check, run on a thread of its own.
private struct InteractiveCheck: @unchecked Sendable {
    // The conversation is Sendable; the library is immutable; the wakeup is thread-safe.
    let action: String
    let details: [String: String]
    let conversation: any PAMConversation
    let keeps: Bool
    let timeout: Duration
    let library: SystemdBusLibrary
    let wake: Wakeup

    var firstAttempt = true

    private static let counter = Atomic<Int>(0)

    init(
        action: String, details: [String: String], conversation: any PAMConversation, keeps: Bool, timeout: Duration,
        library: SystemdBusLibrary, wake: Wakeup
    ) {
        self.action = action
        self.details = details
        self.conversation = conversation
        self.keeps = keeps
        self.timeout = timeout
        self.library = library
        self.wake = wake
    }

    init(_ other: InteractiveCheck, firstAttempt: Bool) {
        self = other
        self.firstAttempt = firstAttempt
    }

    /// The status, or nil when the check was cancelled.
    func run() -> CapabilityStatus? {
        do throws(DBusError) {
            let connection = try DBusConnection(systemBusWith: library)
            let subject = try PolkitSubject.currentProcess()
            let agent = PolkitAuthenticationAgent(
                connection: connection, subject: subject, conversation: conversation, interrupt: wake.descriptor)
            // Another agent for this process (a program's own) may still answer; polkit says so if none does.
            try? agent.register()
            defer { agent.unregister() }
            let id = "swift-capabilities-\(getpid())-\(Self.counter.add(1, ordering: .relaxed).newValue)"
            var outcome: Result<[DBusValue], DBusError>?
            let call = try PolkitAuthority.checkAuthorization(
                on: connection, subject: subject, action: action, details: details,
                flags: PolkitAuthority.allowUserInteraction, cancellationID: id)
            try connection.callAsync(call, timeout: timeout) { outcome = $0 }
            var cancelling = false
            let askToCancel = {
                guard !cancelling,
                    let cancel = try? PolkitAuthority.cancelCheckAuthorization(on: connection, cancellationID: id)
                else { return }
                cancelling = true
                try? connection.send(cancel)
            }
            try connection.run(until: { outcome != nil }, wake: wake.descriptor, onWake: askToCancel)
            // Cancelled is cancelled, even when polkit's answer crossed the cancellation.
            if wake.wasSignalled { return nil }
            switch outcome! {
            case .failure(let error):
                return PolkitAuthorization.status(of: error, action: action)
            case .success(let reply):
                let answer = try PolkitAuthority.Answer(reply: reply)
                guard !keeps, answer.isAuthorized, let temporary = answer.temporaryAuthorization else {
                    return PolkitAuthorization.status(
                        of: answer, action: action, afterInteraction: true, failure: agent.lastFailure, keeps: keeps)
                }
                // keep: false. Revoked at once, so the next check asks again; polkit allows that only to
                // callers in a login session, and otherwise its kept authorization is not reused here.
                var revoked = true
                var reason = ""
                do throws(DBusError) {
                    try PolkitAuthority.revokeTemporaryAuthorization(on: connection, id: temporary)
                } catch {
                    revoked = false
                    reason = "; polkit cannot revoke it: \(error.message)"
                }
                if agent.authenticated { return .authorized("polkit authorizes \(action) (asked this time)") }
                if revoked, firstAttempt { return InteractiveCheck(self, firstAttempt: false).run() }
                return .notDetermined(
                    "polkit answered from an authorization it keeps, which this capability does not reuse (keep: false)"
                        + reason)
            }
        } catch {
            return PolkitAuthorization.status(of: error, action: action)
        }
    }
}

/// Wakes a thread waiting in poll(2) from any thread: a byte on a socket pair.
final class Wakeup: Sendable {
    let descriptor: Int32
    private let writer: Int32
    private let signalled = Atomic<Bool>(false)

    init() {
        var ends: [Int32] = [-1, -1]
        if socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) != 0 {
            ends = [-1, -1]
        }
        descriptor = ends[0]
        writer = ends[1]
    }

    var wasSignalled: Bool { signalled.load(ordering: .acquiring) }

    func signal() {
        guard !signalled.exchange(true, ordering: .acquiringAndReleasing), writer >= 0 else { return }
        var byte: UInt8 = 1
        _ = write(writer, &byte, 1)
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
        if writer >= 0 { close(writer) }
    }
}
