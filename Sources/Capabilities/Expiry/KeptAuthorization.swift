import Locking

/// A capability that keeps a granted authorization for a while, as polkit's `auth_admin_keep`
/// and sudo's timestamp do: after one successful ``authorize()``, the status stays authorized
/// until the time runs out, and then reports the base capability's status again (typically
/// notDetermined). Requests made meanwhile do not ask again.
///
/// Checking a kept authorization is cheap from any number of threads: each processor reads a
/// copy of its own, so gates on every worker do not wait for one another; a ``revoke()`` is seen
/// by every check that starts after it returns.
///
/// Create one with ``CapabilityType/keepingAuthorization(for:clock:)``.
///
/// ```swift
/// // A login asked once and trusted for five minutes, as sudo's timestamp.
/// let kept = pamAdmin.keepingAuthorization(for: .seconds(300))
/// export.addCondition(AuthorizedFor(kept))
/// ```
public final class KeptAuthorization<Base: CapabilityType>: CapabilityType {
    // The state is not generic: nested in this class it would be, and every status read would
    // look up its metadata at run time (a hash-table search, measured at a tenth of a gate check).
    private typealias State = KeptAuthorizationState

    /// The capability whose authorizations are kept.
    public let base: Base
    /// How long an authorization is kept.
    public let duration: Duration

    private let timeline: KeptTimeline
    private let sleepUntil: @Sendable (Int64) async throws -> Void
    /// The source of truth, and what serializes writers; checks read ``copies``.
    private let state = Lock(State())
    private let copies = KeptCopies()
    private let changed = CapabilityChangeSignal()
    /// What is kept for other subjects, apart from this process's own.
    private let subjects = KeptForSubjects()

    /// Keeps `base`'s authorizations for `duration`, measured on `clock`.
    public init<C: Clock>(_ base: Base, keepingFor duration: Duration, clock: C) where C.Duration == Duration {
        self.base = base
        self.duration = duration
        let origin = clock.now
        timeline = KeptTimeline(clock, origin: origin)
        sleepUntil = { offset in
            try await clock.sleep(until: origin.advanced(by: .nanoseconds(offset)), tolerance: nil)
        }
    }

    deinit {
        state.withLock { $0.expiryTask }?.cancel()
    }

    public var name: String { base.name }
    public var requirement: Base.Requirement { base.requirement }
    public var availability: CapabilityAvailability { base.availability }

    /// The kept authorization, if one is held and has not expired. Unavailable (an error) when
    /// the clock cannot be read: neither kept nor expired, so no gate and no negation passes on it.
    private func currentKept() -> CapabilityStatus? {
        guard let now = timeline.now() else {
            return .unavailable("cannot read the clock that times the kept authorization", cause: .error)
        }
        let (kept, expired) = copies.read(at: now)
        if expired { expire(at: now) }
        return kept
    }

    /// Forgets the kept authorization if it ran out by `now`, and remembers that it did.
    private func expire(at now: Int64) {
        state.withLock { state in
            guard let expiry = state.kept?.expiry, expiry <= now else { return }
            state.kept = nil
            state.expired = true
            copies.store(nil)
        }
    }

    public func status() async throws -> CapabilityStatus {
        if let kept = currentKept() { return kept }
        return markedIfExpired(try await base.status())
    }

    public func knownStatus() -> CapabilityStatus? {
        currentKept() ?? base.knownStatus().map(markedIfExpired)
    }

    /// The base's status, with cause ``CapabilityStatus/Cause/expired`` when a kept
    /// authorization ran out and the base would have to be asked again.
    private func markedIfExpired(_ status: CapabilityStatus) -> CapabilityStatus {
        guard status.kind == .notDetermined, status.cause == nil, state.withLock({ $0.expired }) else { return status }
        var marked = status
        marked.cause = .expired
        marked.reason = "the kept authorization expired; \(status.reason)"
        return marked
    }

    /// Returns the kept authorization when one is held; otherwise asks the base capability and
    /// keeps the result when it is authorized.
    public func authorize() async throws -> CapabilityStatus {
        if let kept = currentKept() { return kept }
        return kept(try await base.authorize())
    }

    /// As ``authorize()``, handing `status` on to the base.
    public func authorize(after status: CapabilityStatus) async throws -> CapabilityStatus {
        if let kept = currentKept() { return kept }
        return kept(try await base.authorize(after: status))
    }

    /// `status`, kept when it is authorized.
    private func kept(_ status: CapabilityStatus) -> CapabilityStatus {
        if status.kind == .authorized { keep(status) }
        return status
    }

    /// Forgets a kept authorization now (as `sudo -k` does), this process's and every subject's.
    public func revoke() {
        subjects.removeAll()
        let task = state.withLock { state -> Task<Void, Never>? in
            state.kept = nil
            copies.store(nil)
            state.generation += 1
            defer { state.expiryTask = nil }
            return state.expiryTask
        }
        task?.cancel()
        changed.notify()
    }

    public func statusUpdates() -> CapabilityStatusUpdates {
        .signalled(self, by: [changed], following: [base.statusUpdates()])
    }

    private func keep(_ status: CapabilityStatus) {
        // Without a clock nothing is kept (checks meanwhile report the clock's failure).
        guard let now = timeline.now() else { return }
        let expiry = KeptTimeline.expiry(from: now, after: duration)
        let kept = CapabilityStatus(
            .authorized, reason: "\(status.reason) (kept for \(Self.describe(duration)))", grants: status.grants)
        let sleepUntil = self.sleepUntil
        let changed = self.changed
        let copies = self.copies
        let (previous, generation) = state.withLock { state -> (Task<Void, Never>?, Int) in
            state.kept = State.Kept(status: kept, expiry: expiry)
            copies.store(state.kept)
            state.expired = false
            state.generation += 1
            return (state.expiryTask, state.generation)
        }
        previous?.cancel()
        // The expiry is announced to observers; status() checks the time itself either way.
        let task = Task { [weak self] in
            do { try await sleepUntil(expiry) } catch { return }
            guard let self else { return }
            let expired = self.state.withLock { state -> Bool in
                guard state.generation == generation else { return false }
                state.kept = nil
                copies.store(nil)
                state.expired = true
                state.expiryTask = nil
                return true
            }
            if expired { changed.notify() }
        }
        let stale = state.withLock { state -> Bool in
            guard state.generation == generation else { return true }
            state.expiryTask = task
            return false
        }
        if stale { task.cancel() }
        changed.notify()
    }

    private static func describe(_ duration: Duration) -> String {
        let seconds = duration.components.seconds
        if seconds >= 3600, seconds % 3600 == 0 { return "\(seconds / 3600) h" }
        if seconds >= 60, seconds % 60 == 0 { return "\(seconds / 60) min" }
        if seconds >= 1 { return "\(seconds) s" }
        return "\(duration)"
    }
}

extension KeptAuthorization: KeptReasonReading {
    func keptReason(meeting requirement: GrantRequirement) -> String? {
        guard let now = timeline.now() else { return nil }
        return copies.reason(at: now, meeting: requirement)
    }
}

extension KeptAuthorization: SubjectCapability {
    /// The base capability as it answers for `subject`, with the authorization kept for that
    /// subject's scope (``Subject/keepScope``): never this process's, never another client's.
    public func forSubject(_ subject: Subject) -> any CapabilityType {
        KeptForSubject(
            base: base.evaluated(for: subject), scope: subject.keepScope, store: subjects, duration: duration,
            timeline: timeline)
    }
}

extension CapabilityType {
    /// This capability, keeping each granted authorization for `duration` on `clock`.
    public func keepingAuthorization<C: Clock>(for duration: Duration, clock: C) -> KeptAuthorization<Self>
    where C.Duration == Duration {
        KeptAuthorization(self, keepingFor: duration, clock: clock)
    }

    /// This capability, keeping each granted authorization for `duration`.
    public func keepingAuthorization(for duration: Duration) -> KeptAuthorization<Self> {
        KeptAuthorization(self, keepingFor: duration, clock: ContinuousClock())
    }
}

/// What a ``KeptAuthorization`` keeps, guarded by its lock.
struct KeptAuthorizationState {
    struct Kept {
        var status: CapabilityStatus
        /// Nanoseconds on the capability's ``Timeline``.
        var expiry: Int64
    }

    var kept: Kept?
    /// A kept authorization ran out and none was kept since: the base's status says why it is needed again.
    var expired = false
    var generation = 0
    var expiryTask: Task<Void, Never>?
}
