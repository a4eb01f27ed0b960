import Locking

/// The authorizations a ``KeptAuthorization`` keeps for other subjects (a service's clients),
/// one per subject's ``Subject/keepScope``, so one client's login never opens another's gate.
/// Bounded: past ``limit`` subjects, expired entries go first, then the oldest, so clients
/// cannot grow it without end.
final class KeptForSubjects: Sendable {
    struct Entry {
        var status: CapabilityStatus
        var expiry: Int64
    }

    /// The most subjects kept at once.
    static let limit = 4096

    private let entries = Lock<[String: Entry]>([:])

    /// The status kept for `scope`, unless it ran out by `now`.
    func kept(_ scope: String, at now: Int64) -> CapabilityStatus? {
        entries.withLock { entries in
            guard let entry = entries[scope] else { return nil }
            guard entry.expiry > now else {
                entries[scope] = nil
                return nil
            }
            return entry.status
        }
    }

    /// Keeps `status` for `scope` until `expiry`.
    func keep(_ status: CapabilityStatus, for scope: String, until expiry: Int64, at now: Int64) {
        entries.withLock { entries in
            if entries[scope] == nil, entries.count >= Self.limit {
                entries = entries.filter { $0.value.expiry > now }
                if entries.count >= Self.limit, let oldest = entries.min(by: { $0.value.expiry < $1.value.expiry }) {
                    entries[oldest.key] = nil
                }
            }
            entries[scope] = Entry(status: status, expiry: expiry)
        }
    }

    /// Forgets every subject's authorization.
    func removeAll() {
        entries.withLock { $0.removeAll() }
    }
}

/// A ``KeptAuthorization`` asked about another subject: the base capability as it answers for
/// the subject, with that subject's kept authorization, if any.
struct KeptForSubject: CapabilityType {
    let base: any CapabilityType
    let scope: String?
    let store: KeptForSubjects
    let duration: Duration
    let timeline: KeptTimeline

    var name: String { base.name }
    var availability: CapabilityAvailability { base.availability }

    private func kept() -> CapabilityStatus? {
        guard let scope, let now = timeline.now() else { return nil }
        return store.kept(scope, at: now)
    }

    func status() async throws -> CapabilityStatus {
        if let kept = kept() { return kept }
        return try await base.status()
    }

    func knownStatus() -> CapabilityStatus? {
        kept() ?? base.knownStatus()
    }

    func authorize() async throws -> CapabilityStatus {
        if let kept = kept() { return kept }
        return kept(try await base.authorize())
    }

    func authorize(after status: CapabilityStatus) async throws -> CapabilityStatus {
        if let kept = kept() { return kept }
        return kept(try await base.authorize(after: status))
    }

    /// `status`, kept for the subject's scope when it is authorized.
    private func kept(_ status: CapabilityStatus) -> CapabilityStatus {
        // A subject without a scope (a user by name) has nothing to keep it for.
        guard status.kind == .authorized, let scope, let now = timeline.now() else { return status }
        store.keep(
            CapabilityStatus(.authorized, reason: "\(status.reason) (kept for this client)", grants: status.grants),
            for: scope, until: KeptTimeline.expiry(from: now, after: duration), at: now)
        return status
    }

    func statusUpdates() -> CapabilityStatusUpdates { base.statusUpdates() }
}
