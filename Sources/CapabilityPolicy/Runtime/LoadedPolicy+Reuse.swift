import Capabilities
import FeatureFlags

extension LoadedPolicy {
    /// Whether a decision of gate `name` for a subject follows from the subject's user and groups,
    /// the flags' values and the flag context alone: every capability the gate reads is of kind
    /// `user`, `group` or `flag`, and no flag it reads may read the clock (`$flagd.timestamp`,
    /// as the flags stand now). Such a decision can be reused for the same user and context
    /// while the user's entry and ``flagsGeneration`` are unchanged (ask again once it moves: a
    /// flag that reads the clock may be defined meanwhile); any other (a file, a host, a login,
    /// a rollout by time) must be decided every time.
    package func decidesFromIdentityAndFlags(gate name: String) -> Bool {
        guard policy.gates[name] != nil else { return false }
        let read = policy.reads(gate: name)
        var flagKeys = read.flags
        for capability in read.capabilities {
            guard let declaration = policy.capabilities[capability] else { return false }
            switch declaration.kind {
            case "user", "group": continue
            case "flag":
                guard let key = declaration.settings.string("flag") else { return false }
                flagKeys.insert(key)
            default: return false
            }
        }
        return !flags.readsClock(flagKeys) && systemFlags?.readsClock(flagKeys) != true
    }

    /// Moves whenever a flag the policy reads changes: read it before deciding, and a decision is
    /// current for as long as it has not moved.
    package var flagsGeneration: FlagsGeneration {
        FlagsGeneration(flags: flags.generation, systemFlags: systemFlags?.generation ?? 0)
    }

    /// Where the flag stores of a policy stand (``flagsGeneration``).
    package struct FlagsGeneration: Hashable, Sendable {
        let flags: UInt64
        let systemFlags: UInt64
    }
}
