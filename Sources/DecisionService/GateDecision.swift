import Varlink

/// A gate's decision as a ``DecisionClient`` receives it (`org.capctl.gates.Decision`).
public struct GateDecision: Sendable, Equatable {
    /// How the gate stands.
    public enum Outcome: String, Sendable {
        /// It holds.
        case satisfied
        /// It does not.
        case failed
        /// It could not be decided: it never holds then.
        case undecided
        /// It could hold after the caller authenticates (``DecisionClient/authorize(gate:conversation:)``).
        case needsInteraction
    }

    /// One part of the gate and why it stands so, as `capctl check --explain` prints it.
    public struct Explanation: Sendable, Equatable {
        /// How a part stands.
        public enum Outcome: String, Sendable {
            /// It holds.
            case passed
            /// It does not.
            case failed
            /// It could not be decided.
            case undecided
            /// It was not asked: the outcome was already known.
            case notChecked
        }

        /// The part, such as `capability admin-login`.
        public let condition: String
        /// How it stands.
        public let outcome: Outcome
        /// Why.
        public let reason: String
        /// The parts it is made of.
        public let children: [Explanation]

        init?(_ value: VarlinkValue) {
            guard case .string(let condition)? = value["condition"], case .string(let word)? = value["outcome"],
                let outcome = Outcome(rawValue: word), case .string(let reason)? = value["reason"],
                case .array(let values)? = value["children"]
            else { return nil }
            var children: [Explanation] = []
            for child in values {
                guard let explanation = Explanation(child) else { return nil }
                children.append(explanation)
            }
            (self.condition, self.outcome, self.reason, self.children) = (condition, outcome, reason, children)
        }
    }

    /// The gate's name.
    public let gate: String
    /// How it stands.
    public let outcome: Outcome
    /// The gate's `description:` in the policy.
    public let description: String?
    /// What the caller can do about it: `authorize` when authenticating could open it.
    public let actions: [String]
    /// Every part of the gate and why: given to callers running as root only.
    public let explanation: Explanation?

    /// Whether the gate holds.
    public var holds: Bool { outcome == .satisfied }

    /// The decision in a reply; nil when the reply does not hold one (anything unknown in it
    /// reads as no decision, never as a weaker one).
    init?(_ value: VarlinkValue) {
        guard case .string(let gate)? = value["gate"], case .string(let word)? = value["outcome"],
            let outcome = Outcome(rawValue: word), case .array(let actionValues)? = value["actions"]
        else { return nil }
        var actions: [String] = []
        for action in actionValues {
            guard case .string(let name) = action else { return nil }
            actions.append(name)
        }
        switch value["description"] {
        case .string(let text)?: description = text
        case .null?, nil: description = nil
        default: return nil
        }
        switch value["explanation"] {
        case .null?, nil: explanation = nil
        case let tree?:
            guard let parsed = Explanation(tree) else { return nil }
            explanation = parsed
        }
        (self.gate, self.outcome, self.actions) = (gate, outcome, actions)
    }
}
