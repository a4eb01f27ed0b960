import Capabilities
public import ProcedureCore

/// The result of evaluating a gate: the core's verdict and explanation, from which its
/// ``Decision`` (the words every route uses) is made.
///
/// ```swift
/// let evaluation = try await policy.evaluate(gate: "restart-web", subject: .user(named: "alice"))
/// if evaluation.decisionOutcome == .needsInteraction { print("a login could open it") }
/// ```
public struct GateEvaluation: Sendable {
    /// How a gate's condition stands: the core's verdict (satisfied, failed, undecided,
    /// needsInteraction). What is told of it is ``GateEvaluation/decisionOutcome``.
    public typealias Outcome = ConditionResult.Verdict

    /// The gate's name.
    public let gate: String
    /// How its condition stands.
    public let outcome: Outcome
    /// Every part with passed, failed, undecided or not checked (not asked), and why.
    public let explanation: ConditionExplanation

    /// Whether the gate holds.
    public var holds: Bool { outcome == .satisfied }

    /// Whether it failed because a person dismissed a prompt it asked (not because they were
    /// refused): told once, here, from the capability error that carries the dismissal.
    public let wasDismissed: Bool

    /// The evaluation of `gate` whose condition came to `outcome`, as `explanation` says.
    /// - Parameters:
    ///   - gate: The gate's name.
    ///   - outcome: How its condition stands.
    ///   - explanation: Every part and why; a failed leaf whose capability error says the prompt
    ///     was dismissed makes a failed gate dismissed.
    public init(gate: String, outcome: Outcome, explanation: ConditionExplanation) {
        self.gate = gate
        self.outcome = outcome
        self.explanation = explanation
        wasDismissed =
            outcome == .failed
            && explanation.failedLeaves.contains { leaf in
                (leaf.error as? CapabilityError)?.status.cause == .dismissed
            }
    }

    init(gate: String, report: ConditionReport) {
        self.init(gate: gate, outcome: report.verdict, explanation: report.explanation)
    }

    /// The decision's outcome: the core's verdict, with a failure whose prompt was dismissed its own case.
    public var decisionOutcome: Decision.Outcome {
        switch outcome {
        case .satisfied: .holds
        case .failed: wasDismissed ? .dismissed : .fails
        case .undecided: .undecided
        case .needsInteraction: .needsInteraction
        }
    }

    /// The status each capability had and the value each flag had as this evaluation read them
    /// (after asking, where someone was asked): what the decision's audit record carries, so it
    /// can be decided again from them (``PolicyReplay``). A part the verdict was decided without
    /// is not in it; one that could pass only by asking is `notDetermined`; a flag that could not
    /// be evaluated, or was no Boolean, is ``GateAnalysis/notABoolean``.
    public var statuses: Assumptions {
        var read = Assumptions()
        func walk(_ node: ConditionExplanation) {
            guard node.children.isEmpty else { return node.children.forEach(walk) }
            guard node.outcome != .notChecked || node.wouldAsk else { return }
            if let name = Self.argument(of: node.condition, in: "AuthorizedFor("), read.capabilities[name] == nil {
                read.capabilities[name] =
                    switch node.outcome {
                    case .passed: .authorized
                    case .notChecked: .notDetermined
                    // A capability that threw left its gate undecided, as an unavailable one does.
                    case .failed, .undecided: (node.error as? CapabilityError)?.status.kind ?? .unavailable
                    }
            } else if let key = Self.argument(of: node.condition, in: "FlagIsOn("), read.flags[key] == nil {
                read.flags[key] =
                    switch node.outcome {
                    case .passed: .bool(true)
                    case .failed: .bool(false)
                    case .undecided, .notChecked: GateAnalysis.notABoolean
                    }
            }
        }
        walk(explanation)
        return read
    }

    private static func argument(of condition: String, in prefix: String) -> String? {
        guard condition.hasPrefix(prefix), condition.hasSuffix(")") else { return nil }
        return String(condition.dropFirst(prefix.count).dropLast())
    }

    /// The decision, with the gate's description and the whole explanation.
    /// - Parameter description: The gate's `description:` in the policy.
    public func decision(description: String?) -> Decision {
        Decision(gate: gate, outcome: decisionOutcome, description: description, explanation: explanation)
    }
}
