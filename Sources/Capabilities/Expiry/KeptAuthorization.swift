import Locking

#if os(Linux)
    import Glibc
#endif

/// A capability that keeps a granted authorization for a while, as polkit's `auth_admin_keep`
/// and sudo's timestamp do: after one successful ``authorize()``, the status stays authorized
/// until the time runs out, and then reports the base capability's status again (typically
/// notDetermined). Requests made meanwhile do not ask again.
///
/// Create one with ``CapabilityType/keepingAuthorization(for:clock:)``.
public final class KeptAuthorization<Base: CapabilityType>: CapabilityType {
    // The state is not generic: nested in this class it would be, and every status read would
    // look up its metadata at run time (a hash-table search, measured at a tenth of a gate check).
    private typealias State = KeptAuthorizationState

    /// The capability whose authorizations are kept.
    public let base: Base
    /// How long an authorization is kept.
    public let duration: Duration

    private let timeline: Timeline
    private let sleepUntil: @Sendable (Int64) async throws -> Void
    private let state = Lock(State())
    private let changed = CapabilityChangeSignal()

    /// Keeps `base`'s authorizations for `duration`, measured on `clock`.
    public init<C: Clock>(_ base: Base, keepingFor duration: Duration, clock: C) where C.Duration == Duration {
        self.base = base
        self.duration = duration
        let origin = clock.now
        timeline = Timeline(clock, origin: origin)
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

    /// The kept authorization, if one is held and has not expired.
    private func currentKept() -> CapabilityStatus? {
        let now = timeline.now()
        return state.withLock { state -> CapabilityStatus? in
            // Read in place: binding the kept value first would copy the status twice.
            guard let expiry = state.kept?.expiry else { return nil }
            guard now < expiry else {
                state.kept = nil
                state.expired = true
                return nil
            }
            return state.kept?.status
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
        let status = try await base.authorize()
        guard status.kind == .authorized else { return status }
        keep(status)
        return status
    }

    /// Forgets a kept authorization now (as `sudo -k` does).
    public func revoke() {
        let task = state.withLock { state -> Task<Void, Never>? in
            state.kept = nil
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
        let (sum, overflow) = timeline.now().addingReportingOverflow(Timeline.nanoseconds(duration))
        let expiry = overflow ? (duration > .zero ? Int64.max : Int64.min) : sum
        let kept = CapabilityStatus(
            .authorized, reason: "\(status.reason) (kept for \(Self.describe(duration)))", grants: status.grants)
        let sleepUntil = self.sleepUntil
        let changed = self.changed
        let (previous, generation) = state.withLock { state -> (Task<Void, Never>?, Int) in
            state.kept = State.Kept(status: kept, expiry: expiry)
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
private struct KeptAuthorizationState {
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

/// The time a ``KeptAuthorization`` measures, in nanoseconds since it was made: an integer
/// comparison per check, where `Duration` arithmetic takes calls. On Linux `ContinuousClock` is
/// CLOCK_BOOTTIME, which counts suspended time, so an authorization kept for five minutes is gone
/// after a night's sleep; that clock is read directly, without the generic witness calls. Other
/// clocks (a test's manual clock) are read through their `now`.
private enum Timeline: Sendable {
    case boottime(origin: Int64)
    case clock(elapsed: @Sendable () -> Duration)

    init<C: Clock>(_ clock: C, origin: C.Instant) where C.Duration == Duration {
        #if os(Linux)
            let start = Self.boottime()
            if clock is ContinuousClock, start != Int64.max {
                self = .boottime(origin: start)
                return
            }
        #endif
        self = .clock(elapsed: { origin.duration(to: clock.now) })
    }

    func now() -> Int64 {
        switch self {
        case .boottime(let origin):
            #if os(Linux)
                let now = Self.boottime()
                return now == Int64.max ? now : now &- origin
            #else
                preconditionFailure("CLOCK_BOOTTIME is read only on Linux")
            #endif
        case .clock(let elapsed):
            return Self.nanoseconds(elapsed())
        }
    }

    #if os(Linux)
        private static func boottime() -> Int64 {
            var time = timespec()
            // It does not fail for this clock on any kernel Swift runs on; if it did, the end
            // of time makes every kept authorization expired (closed), never younger.
            guard clock_gettime(CLOCK_BOOTTIME, &time) == 0 else { return Int64.max }
            return Int64(time.tv_sec) &* 1_000_000_000 &+ Int64(time.tv_nsec)
        }
    #endif

    /// `duration` in nanoseconds, saturated to Int64's range (about 292 years either way).
    static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return seconds < 0 ? Int64.min : Int64.max }
        let (total, overflowAgain) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000)
        guard !overflowAgain else { return seconds < 0 ? Int64.min : Int64.max }
        return total
    }
}
