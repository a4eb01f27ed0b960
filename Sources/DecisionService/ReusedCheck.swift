import Capabilities
import CapabilityPolicy
import LinuxPolicy
import Locking

/// One connection's last `Check`, reused for its next `Check` of the same gate while nothing the
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

    /// The last decision, or what was learned of the gate (not reusable) under that policy and
    /// flags. A class: a call takes one reference out of the lock, not a copy of every field.
    private final class Kept: Sendable {
        let gate: String
        /// Held, not named by address: a policy freed and another made at its address must not
        /// pass for it.
        let policy: LoadedPolicy
        let flags: LoadedPolicy.FlagsGeneration
        /// Nil when the gate is decided anew every time.
        let answer: Answer?

        init(gate: String, policy: LoadedPolicy, flags: LoadedPolicy.FlagsGeneration, answer: Answer?) {
            (self.gate, self.policy, self.flags, self.answer) = (gate, policy, flags, answer)
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

    private let kept = Lock<Kept?>(nil)
    /// The last gate decided anew, its condition built for the client under that policy (nil: it
    /// is built for every call, as a gate that reads a flag is).
    private let prepared = Lock<(gate: String, policy: LoadedPolicy, prepared: LoadedPolicy.PreparedGate?)?>(nil)

    /// Gate `gate` of `policy` prepared for `subject`, made at its first call and kept for the next.
    func prepared(_ gate: String, policy: LoadedPolicy, subject: Subject) -> LoadedPolicy.PreparedGate? {
        if let known = prepared.withLock({ $0.flatMap { $0.gate == gate && $0.policy === policy ? $0 : nil } }) {
            return known.prepared
        }
        let made = try? policy.prepare(gate: gate, subject: subject)
        prepared.withLock { $0 = (gate, policy, made) }
        return made
    }

    /// What to do for `gate` under `policy`, its flags at `flags` (read before deciding), at `now`.
    func find(
        _ gate: String, policy: LoadedPolicy, flags: LoadedPolicy.FlagsGeneration, at now: ContinuousClock.Instant
    ) -> Found {
        guard lifetime > .zero else { return .decide }
        let known = kept.withLock { kept -> Kept? in
            guard let kept, kept.gate == gate, kept.policy === policy, kept.flags == flags else { return nil }
            return kept
        }
        guard let known else {
            let reusable = policy.decidesFromIdentityAndFlags(gate: gate)
            if !reusable { kept.withLock { $0 = Kept(gate: gate, policy: policy, flags: flags, answer: nil) } }
            return reusable ? .decideAndKeep : .decide
        }
        guard let answer = known.answer else { return .decide }
        return now - answer.decidedAt < lifetime ? .reuse(answer) : .decideAndKeep
    }

    /// Keeps `answer` of `gate`, made under `policy` with its flags at `flags`.
    func keep(_ answer: Answer, gate: String, policy: LoadedPolicy, flags: LoadedPolicy.FlagsGeneration) {
        kept.withLock { $0 = Kept(gate: gate, policy: policy, flags: flags, answer: answer) }
    }
}
