import CapabilityPolicy
import FeatureFlags
import LinuxPolicy
import Locking

/// Decisions a route gate made, reused for the next requests of the same user with the same
/// flag context: only for gates whose decision follows from the user's groups and the flags alone
/// (`LoadedPolicy.decidesFromIdentityAndFlags`), and only while nothing it followed from has
/// changed: the same loaded policy (an edit loads a new one), the same flags (their generation,
/// read before deciding), the same entry of the user (kept at most the user lifetime) and within
/// that lifetime itself. Each reuse is still recorded, as a decision of its own.
final class ReusedDecisions: Sendable {
    struct Key: Hashable {
        let user: String
        let context: FlagEvaluationContext
    }

    struct Entry {
        let evaluation: GateEvaluation
        /// The decision's audit record, renewed for each reuse; nil without an audit trail.
        let record: AuditRecord?
        /// Held, not named by address: a policy freed and another made at its address must not
        /// pass for it.
        let policy: LoadedPolicy
        let flags: LoadedPolicy.FlagsGeneration
        let user: RequestUsers.KeptUser
    }

    static let capacity = 4096
    private let entries = Lock<[Key: Entry]>([:])
    /// Whether each policy's gate may be reused, worked out once per loaded policy and flags
    /// (a flag reloaded may come to read the clock).
    private let eligible = Lock<(policy: LoadedPolicy?, flags: LoadedPolicy.FlagsGeneration?, answer: Bool)>(
        (nil, nil, false))

    /// Whether `gate` of `policy` is decided from identity and flags alone, with its flags at `flags`.
    func mayReuse(_ gate: String, of policy: LoadedPolicy, flags: LoadedPolicy.FlagsGeneration) -> Bool {
        if let known = eligible.withLock({ $0.policy === policy && $0.flags == flags ? $0.answer : nil }) {
            return known
        }
        let answer = policy.decidesFromIdentityAndFlags(gate: gate)
        eligible.withLock { $0 = (policy, flags, answer) }
        return answer
    }

    /// The evaluation kept for `key`, when every condition of its reuse still holds.
    func entry(
        for key: Key, policy: LoadedPolicy, flags: LoadedPolicy.FlagsGeneration, user: RequestUsers.KeptUser
    ) -> Entry? {
        guard let entry = entries.withLock({ $0[key] }), entry.policy === policy,
            entry.flags == flags, entry.user === user
        else { return nil }
        return entry
    }

    /// Keeps `evaluation`, made with the flags at `flags` (read before it was made).
    func keep(
        _ evaluation: GateEvaluation, record: AuditRecord?, for key: Key, policy: LoadedPolicy,
        flags: LoadedPolicy.FlagsGeneration, user: RequestUsers.KeptUser
    ) {
        let entry = Entry(
            evaluation: evaluation, record: record, policy: policy, flags: flags, user: user)
        entries.withLock { entries in
            if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
            entries[key] = entry
        }
    }
}
