import Capabilities
import FeatureFlags

extension LoadedPolicy {
    /// Whether a decision of gate `name` for a subject follows from the subject's user and groups,
    /// the flags' values and the flag context alone: every capability the gate reads is of kind
    /// `user`, `group` or `flag`. Such a decision can be reused for the same user and context
    /// while the user's entry and ``flagsGeneration`` are unchanged; any other (a file, a host, a
    /// login) must be decided every time.
    package func decidesFromIdentityAndFlags(gate name: String) -> Bool {
        guard policy.gates[name] != nil else { return false }
        return policy.reads(gate: name).capabilities.allSatisfy { capability in
            guard let kind = policy.capabilities[capability]?.kind else { return false }
            return kind == "user" || kind == "group" || kind == "flag"
        }
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
