import Capabilities
public import ConfigurationFiles
import FeatureFlags
public import ProcedureCore

/// A recorded decision decided again: the gate evaluated by the same evaluator, with each
/// capability's status and each flag's value as the record gives them, and nothing read from this
/// host. The record of a decision holds only what the decision read (a part the verdict was
/// decided without is not in it), so the replay also says, exactly (a decision diagram of the
/// gate), whether what the record lacks could have changed the outcome: with the policy that
/// decided it cannot; with another policy, a part the old gate never read can.
///
/// ```swift
/// let statuses = Assumptions(capabilities: ["backup-group": .denied])
/// let replay = try await PolicyReplay(gate: "export", statuses: statuses, recorded: .fails, policy: policy)
/// print(replay.isSame ? "same" : "different: \(replay.outcome)")
/// ```
public struct PolicyReplay: Sendable {
    /// The gate decided again.
    public let gate: String
    /// The outcome the record says.
    public let recorded: Decision.Outcome
    /// The outcome now: the evaluator's, with what the record lacks denied (a capability) or
    /// not a Boolean (a flag).
    public let outcome: Decision.Outcome
    /// Every outcome some status of what the record lacks would give: one when the record decides
    /// the gate alone.
    public let possibleOutcomes: Set<Decision.Outcome>
    /// What the gate reads now that the record has no status for, and that could change its
    /// outcome (capability names, flags as `flag KEY`); empty when ``possibleOutcomes`` has one.
    public let unrecorded: [String]
    /// The evaluation, part by part.
    public let explanation: ConditionExplanation

    /// Whether the record decides the gate alone and the outcome is the recorded one. A recorded
    /// `dismissed` is `fails` decided again: a replay asks nobody, so nobody dismisses a prompt.
    public var isSame: Bool {
        possibleOutcomes.count == 1 && Self.comparable(outcome) == Self.comparable(recorded)
    }

    /// Decides `gate` of `policy` again from `statuses`.
    /// - Parameters:
    ///   - gate: The gate the record names.
    ///   - statuses: What the record says each capability and flag was (``GateEvaluation/statuses``).
    ///   - recorded: The outcome the record says.
    ///   - policy: The policy to decide with: the one that decided, or another to see what it changes.
    /// - Throws: `ConfigurationError` when `policy` defines no gate `gate`.
    public init(
        gate: String, statuses: Assumptions, recorded: Decision.Outcome, policy: LoadedPolicy
    ) async throws(ConfigurationError) {
        let definitions = policy.policy
        guard definitions.gates[gate] != nil else {
            throw ConfigurationError("the policy defines no gate \"\(gate)\"")
        }
        let reads = definitions.reads(gate: gate)
        var given = Assumptions()
        for name in reads.capabilities {
            given.capabilities[name] = statuses.capabilities[name] ?? .denied
        }
        for key in reads.flags {
            given.flags[key] = statuses.flags[key] ?? GateAnalysis.notABoolean
        }
        let evaluation = try await policy.evaluate(gate: gate, assuming: given)
        self.gate = gate
        self.recorded = recorded
        outcome = evaluation.decisionOutcome
        explanation = evaluation.explanation
        if reads.capabilities.allSatisfy({ statuses.capabilities[$0] != nil })
            && reads.flags.allSatisfy({ statuses.flags[$0] != nil })
        {
            // The record gives everything the gate reads: nothing is left free to change it.
            possibleOutcomes = [outcome]
            unrecorded = []
        } else {
            let reach = GateAnalysis.outcomes(gate: gate, in: definitions, given: statuses)
            possibleOutcomes = reach.outcomes
            unrecorded = reach.outcomes.count > 1 ? reach.unrecorded : []
        }
    }

    private static func comparable(_ outcome: Decision.Outcome) -> Decision.Outcome {
        outcome == .dismissed ? .fails : outcome
    }
}

extension GateAnalysis {
    /// The outcomes `gate` can come to when the atoms `given` names have those values and the
    /// others any value, and the others met on the way.
    static func outcomes(
        gate: String, in policy: Policy, given: Assumptions
    ) -> (outcomes: Set<Decision.Outcome>, unrecorded: [String]) {
        guard let declaration = policy.gates[gate] else { return ([], []) }
        let notDetermined = Set(given.capabilities.filter { $0.value == .notDetermined }.keys)
        var builder = Builder(policy: policy, askingAnyway: notDetermined)
        let root = builder.build(declaration.expression, silenced: false)
        let diagram = builder.diagram
        let atoms = builder.atoms
        var words: Set<Decision.Outcome> = []
        var unrecorded: Set<String> = []
        var seen: Set<Int> = []
        var stack = [root]
        while let id = stack.popLast() {
            guard seen.insert(id).inserted else { continue }
            if diagram.isLeaf(id) {
                words.insert(Self.outcome(diagram.word(id)))
                continue
            }
            let node = diagram.nodes[id]
            let atom = atoms[node.atom]
            let value: Int? =
                if atom.isFlag {
                    given.flags[atom.name].map { value in
                        switch value {
                        case .bool(true): 0
                        case .bool(false): 1
                        default: 2
                        }
                    }
                } else {
                    given.capabilities[atom.name].flatMap { statuses.firstIndex(of: $0) }
                }
            if let value, value < node.count {
                stack.append(node[value])
            } else {
                // Not recorded: any branch may be taken.
                if value == nil { unrecorded.insert(atom.isFlag ? "flag \(atom.name)" : atom.name) }
                stack += node.branches
            }
        }
        return (words, unrecorded.sorted())
    }

    private static func outcome(_ word: OutcomeDiagram.Word) -> Decision.Outcome {
        switch word {
        case .holds: .holds
        case .fails: .fails
        case .undecided: .undecided
        case .needsInteraction: .needsInteraction
        }
    }
}
