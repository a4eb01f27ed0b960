import Capabilities
import Glibc
import Plumbing
import Synchronization

/// One interactive check, run on a thread of its own.
struct InteractiveCheck: @unchecked Sendable {
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
            let deadline = ContinuousClock.now + timeout
            let connection = try DBusConnection(systemBusWith: library)
            let authority = try PolkitAuthority(on: connection)
            let subject = try PolkitSubject.currentProcess()
            let agent = PolkitAuthenticationAgent(
                authority: authority, subject: subject, conversation: conversation, interrupt: wake.descriptor)
            // Another agent for this process (a program's own) may still answer; polkit says so if none does.
            try? agent.register()
            defer { agent.unregister() }
            let id = "swift-capabilities-\(getpid())-\(Self.counter.add(1, ordering: .relaxed).newValue)"
            var outcome: Result<[DBusValue], DBusError>?
            let call = try authority.checkAuthorization(
                subject: subject, action: action, details: details, flags: PolkitAuthority.allowUserInteraction,
                cancellationID: id)
            try connection.callAsync(call, timeout: timeout) { outcome = $0 }
            var cancelling = false
            let askToCancel = {
                guard !cancelling,
                    let cancel = try? authority.cancelCheckAuthorization(cancellationID: id)
                else { return }
                cancelling = true
                try? connection.send(cancel)
            }
            try connection.run(
                until: { outcome != nil }, deadline: deadline, wake: wake.descriptor, onWake: askToCancel)
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
                    try authority.revokeTemporaryAuthorization(id: temporary)
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
