import Capabilities
import CapabilityPolicy
import LinuxPolicy
import Locking

/// A connection's last `Check` of each gate, reused for its next `Check` of that gate while nothing the
/// decision followed from can have changed: the gate reads only the client's user and groups
/// (the kernel's, fixed when it connected) and flags that do not read the clock
/// (`LoadedPolicy.decidesFromIdentityAndFlags`); the loaded policy is the same one (an edit loads
/// another); the flags have not moved (their generation, read before deciding); and the decision
/// is younger than ``lifetime``, so the user and group databases' names and the host name are read
/// again at least that often, as a route gate reads a user's groups. A gate that reads a file, a
/// process, a host or a login is decided on every call. Each reuse is a decision of its own in
/// the audit trail (the record renewed: its own id and time). A gate decided anew on every call
/// keeps the condition built for the client (`LoadedPolicy.PreparedGate`): its parts still answer
/// at every check; only building them again is saved.
final class ReusedCheck: Sendable {
    /// How long a decision is reused at most (zero: never).
    let lifetime: Duration

    init(lifetime: Duration) {
        self.lifetime = lifetime
    }

    /// A gate's last decision, or what was learned of it (not reusable) under that policy and
    /// flags. A class: a call takes one reference out of the lock, not a copy of every field.
    private final class Kept: Sendable {
        /// Held, not named by address: a policy freed and another made at its address must not
        /// pass for it.
        let policy: LoadedPolicy
        let flags: LoadedPolicy.FlagsGeneration
        /// Nil when the gate is decided anew every time.
        let answer: Answer?

        init(policy: LoadedPolicy, flags: LoadedPolicy.FlagsGeneration, answer: Answer?) {
            (self.policy, self.flags, self.answer) = (policy, flags, answer)
        }
    }

    /// What was decided and answered, kept for the next calls.
    struct Answer: Sendable {
        let outcome: Decision.Outcome
        /// The reply, encoded.
        let reply: [UInt8]
        let record: AuditRecord
        let decidedAt: ContinuousClock.Instant
    }

    /// What a call finds.
    enum Found {
        /// A decision to answer again (its record still to be renewed and written).
        case reuse(Answer)
        /// Decide, and keep the answer (``keep(_:gate:policy:flags:)``).
        case decideAndKeep
        /// Decide; this gate is not reused under this policy and flags.
        case decide
    }

    /// Gates a connection keeps what it learned of, at most: a client asking a few gates in turn
    /// keeps each one's; one asking more starts afresh.
    static let gatesKept = 16

    /// By gate: its last answer, or that it is decided anew.
    private let kept = Lock<[String: Kept]>([:])
    /// By gate: its condition built for the client under that policy (nil: built for every call,
    /// as a gate that reads a flag is).
    private let prepared = Lock<[String: (policy: LoadedPolicy, prepared: LoadedPolicy.PreparedGate?)]>([:])

    /// Gate `gate` of `policy` prepared for `subject`, made at its first call and kept for the next.
    func prepared(_ gate: String, policy: LoadedPolicy, subject: Subject) -> LoadedPolicy.PreparedGate? {
        if let known = prepared.withLock({ $0[gate] }), known.policy === policy { return known.prepared }
        let made = try? policy.prepare(gate: gate, subject: subject)
        prepared.withLock { Self.store((policy, made), for: gate, in: &$0) }
        return made
    }

    /// Stores `value` for `gate`, forgetting every other gate first when `gatesKept` are kept.
    private static func store<Value>(_ value: Value, for gate: String, in table: inout [String: Value]) {
        if table.count >= gatesKept, table[gate] == nil { table.removeAll(keepingCapacity: true) }
        table[gate] = value
    }

    /// What to do for `gate` under `policy`, its flags at `flags` (read before deciding), at `now`.
    func find(
        _ gate: String, policy: LoadedPolicy, flags: LoadedPolicy.FlagsGeneration, at now: ContinuousClock.Instant
    ) -> Found {
        guard lifetime > .zero else { return .decide }
        let known = kept.withLock { kept -> Kept? in
            guard let known = kept[gate], known.policy === policy, known.flags == flags else { return nil }
            return known
        }
        guard let known else {
            let reusable = policy.decidesFromIdentityAndFlags(gate: gate)
            if !reusable {
                kept.withLock { Self.store(Kept(policy: policy, flags: flags, answer: nil), for: gate, in: &$0) }
            }
            return reusable ? .decideAndKeep : .decide
        }
        guard let answer = known.answer else { return .decide }
        return now - answer.decidedAt < lifetime ? .reuse(answer) : .decideAndKeep
    }

    /// Keeps `answer` of `gate`, made under `policy` with its flags at `flags`.
    func keep(_ answer: Answer, gate: String, policy: LoadedPolicy, flags: LoadedPolicy.FlagsGeneration) {
        kept.withLock { Self.store(Kept(policy: policy, flags: flags, answer: answer), for: gate, in: &$0) }
    }
}
