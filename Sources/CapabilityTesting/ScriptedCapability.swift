public import Capabilities
import Locking

/// A capability whose statuses and authorization answers a test sets, for testing code that
/// gates on capabilities without PAM, files or networks.
///
/// It counts every status read and authorization request, and tracks how many requests ran
/// at once, so tests can check that a gate never asked or that requests were serialized.
///
/// ```swift
/// import CapabilityTesting
///
/// let vault = ScriptedCapability(name: "vault", status: .denied("no token"))
/// vault.answerAuthorizations(.becomes(.authorized("token issued")))
/// let gated = BlockProcedure(name: "read secret") {}
/// gated.addCondition(AuthorizedFor(vault))
/// queue.addProcedure(gated)
/// await gated.waitUntilFinished()
/// print(vault.authorizationCount)  // 1
/// ```
public final class ScriptedCapability: CapabilityType {
    /// What one ``authorize()`` call does.
    public enum AuthorizationAnswer: Sendable {
        /// The status becomes this and stays (the grant or refusal is remembered), and it is returned.
        case becomes(CapabilityStatus)
        /// This is returned, but the status is left as it was (nothing is remembered).
        case returns(CapabilityStatus)
        /// The request throws this error.
        case fails(any Error)
    }

    private struct State {
        var status: CapabilityStatus
        var statusError: (any Error)?
        var answers: [AuthorizationAnswer] = []
        var statusReads = 0
        var authorizations = 0
        var running = 0
        var mostRunning = 0
    }

    public let name: String
    public let requirement: GrantRequirement
    public let availability: CapabilityAvailability
    /// Whether ``knownStatus()`` answers at once (true) or the status must be read with ``status()``.
    public let answersAtOnce: Bool

    private let state: Lock<State>
    private let changed = CapabilityChangeSignal()
    private let willAuthorize: (@Sendable () async -> Void)?

    /// Creates a scripted capability.
    /// - Parameters:
    ///   - name: The capability's name.
    ///   - status: The status it reports until changed.
    ///   - requirement: What a status must show to count as held.
    ///   - availability: Whether its backend "exists".
    ///   - answersAtOnce: Whether ``knownStatus()`` answers, letting gates decide without a task.
    ///   - willAuthorize: Awaited at the start of every authorization request, so a test can hold
    ///     requests open (to check they are serialized, or to cancel one in flight).
    public init(
        name: String,
        status: CapabilityStatus = .notDetermined("not asked yet"),
        requirement: GrantRequirement = .authorized,
        availability: CapabilityAvailability = .available,
        answersAtOnce: Bool = true,
        willAuthorize: (@Sendable () async -> Void)? = nil
    ) {
        self.name = name
        self.requirement = requirement
        self.availability = availability
        self.answersAtOnce = answersAtOnce
        self.willAuthorize = willAuthorize
        state = Lock(State(status: status))
    }

    /// Sets the status and tells observers of ``statusUpdates()``.
    public func setStatus(_ status: CapabilityStatus) {
        state.withLock {
            $0.status = status
            $0.statusError = nil
        }
        changed.notify()
    }

    /// Makes ``status()`` throw `error` until the status is set again.
    public func failStatusReads(with error: any Error) {
        state.withLock { $0.statusError = error }
        changed.notify()
    }

    /// Queues answers for the next authorization requests, in order. Without a queued answer,
    /// a request returns the current status unchanged.
    public func answerAuthorizations(_ answers: AuthorizationAnswer...) {
        state.withLock { $0.answers.append(contentsOf: answers) }
    }

    /// How many times the status was read, through ``status()`` or ``knownStatus()``.
    public var statusReadCount: Int { state.withLock { $0.statusReads } }
    /// How many authorization requests were made.
    public var authorizationCount: Int { state.withLock { $0.authorizations } }
    /// The most authorization requests that were in progress at the same time.
    public var mostConcurrentAuthorizations: Int { state.withLock { $0.mostRunning } }

    public func status() async throws -> CapabilityStatus {
        try state.withLock { state in
            state.statusReads += 1
            if let error = state.statusError { throw error }
            return state.status
        }
    }

    public func knownStatus() -> CapabilityStatus? {
        guard answersAtOnce else { return nil }
        return state.withLock { state -> CapabilityStatus? in
            state.statusReads += 1
            return state.statusError == nil ? state.status : nil
        }
    }

    public func authorize() async throws -> CapabilityStatus {
        state.withLock { state in
            state.authorizations += 1
            state.running += 1
            state.mostRunning = max(state.mostRunning, state.running)
        }
        defer { state.withLock { $0.running -= 1 } }
        if let willAuthorize { await willAuthorize() }
        let answer = state.withLock { state -> AuthorizationAnswer in
            state.answers.isEmpty ? .returns(state.status) : state.answers.removeFirst()
        }
        switch answer {
        case .becomes(let status):
            setStatus(status)
            return status
        case .returns(let status):
            return status
        case .fails(let error):
            throw error
        }
    }

    public func statusUpdates() -> CapabilityStatusUpdates {
        .signalled(self, by: [changed])
    }
}
