public import Capabilities
public import ProcedureCore

/// A gate's decision in the one vocabulary every route speaks: `capctl`'s output and exit
/// status, capctld's replies (`org.capctl.gates.Decision`), `DecisionClient`, the audit record's
/// `CAPCTL_OUTCOME` and the metrics' `outcome` label all use ``Outcome``'s words
/// (Docs/Semantics.md, rule 49).
///
/// ```swift
/// let evaluation = try await policy.evaluate(gate: "restart-web")
/// let decision = evaluation.decision(description: policy.policy.gates["restart-web"]?.summary)
/// print("\(decision.gate): \(decision.outcome)")  // restart-web: fails
/// ```
public struct Decision: Sendable, Equatable {
    /// How a gate stands, in words that are the same on the wire, in the audit trail, in the
    /// metrics and in `capctl`'s output.
    public enum Outcome: String, Sendable, CaseIterable {
        /// It holds.
        case holds
        /// It does not: something it needs does not hold.
        case fails
        /// It could not be decided (a backend did not answer); it does not hold.
        case undecided
        /// It could hold after the caller authenticates, and nobody was asked.
        case needsInteraction
        /// A person was asked and dismissed the prompt; it does not hold.
        case dismissed

        /// Whether the gate holds.
        public var holds: Bool { self == .holds }

        /// A capability's status as a decision on it, for `authorize`: authorized holds, denied
        /// fails, unavailable is undecided, notDetermined needs interaction (dismissed, when the
        /// person dismissed the prompt).
        public init(_ status: CapabilityStatus) {
            switch status.kind {
            case .authorized: self = .holds
            case .denied: self = .fails
            case .unavailable: self = .undecided
            case .notDetermined: self = status.cause == .dismissed ? .dismissed : .needsInteraction
            }
        }

        /// The most closed of `outcomes` (fails, undecided, dismissed, needsInteraction, then
        /// holds), to summarize several decisions in one word; holds when there are none.
        public static func mostClosed(_ outcomes: some Sequence<Outcome>) -> Outcome {
            outcomes.min { $0.closedRank < $1.closedRank } ?? .holds
        }

        private var closedRank: Int {
            switch self {
            case .fails: 0
            case .undecided: 1
            case .dismissed: 2
            case .needsInteraction: 3
            case .holds: 4
            }
        }
    }

    /// The gate's name.
    public let gate: String
    /// How it stands.
    public let outcome: Outcome
    /// The gate's `description:` in the policy.
    public let description: String?
    /// Every part of the gate and why; nil when it was not told (capctld tells root only).
    public let explanation: ConditionExplanation?

    /// A decision on `gate`.
    /// - Parameters:
    ///   - gate: The gate's name.
    ///   - outcome: How it stands.
    ///   - description: The gate's `description:` in the policy.
    ///   - explanation: Every part of the gate and why, if told.
    public init(gate: String, outcome: Outcome, description: String?, explanation: ConditionExplanation?) {
        self.gate = gate
        self.outcome = outcome
        self.description = description
        self.explanation = explanation
    }

    /// Whether the gate holds.
    public var holds: Bool { outcome.holds }

    /// What the caller can do about it: `authorize` when authenticating could open it.
    public var actions: [String] { outcome == .needsInteraction ? ["authorize"] : [] }

    /// The same decision without its explanation: what a caller that is not root is told.
    public var withoutExplanation: Decision {
        Decision(gate: gate, outcome: outcome, description: description, explanation: nil)
    }

    /// The failing requirements in one line (`condition: reason; ...`), as the audit record
    /// keeps them; empty when it holds or was not explained.
    public var reasons: String {
        guard let explanation, !holds else { return "" }
        return explanation.failedLeaves.map { "\($0.condition): \($0.reason)" }.joined(separator: "; ")
    }
}
