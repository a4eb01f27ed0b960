import Capabilities
import CapabilityPolicy
import ProcedureCore
import Varlink

/// What a client is told of a decision (`org.capctl.gates.Decision`): the outcome, the gate's
/// description and what it can act on. As polkit tells a client its result and a few details,
/// never the policy's inner workings: the explanation (the groups, PAM services, users and inner
/// names a gate is made of) goes to the audit trail, and to callers running as root.
struct ClientDecision {
    let evaluation: GateEvaluation
    let summary: String?
    let toldTo: Subject

    init(_ evaluation: GateEvaluation, summary: String?, toldTo asker: Subject) {
        self.evaluation = evaluation
        self.summary = summary
        toldTo = asker
    }

    /// The outcome as the interface names it.
    var outcomeWord: String {
        switch evaluation.outcome {
        case .satisfied: "satisfied"
        case .failed: "failed"
        case .undecided: "undecided"
        case .needsInteraction: "needsInteraction"
        }
    }

    var value: VarlinkValue {
        var members: [(key: String, value: VarlinkValue)] = [
            ("gate", .string(evaluation.gate)), ("outcome", .string(outcomeWord)),
            ("description", summary.map(VarlinkValue.string) ?? .null),
            ("actions", .array(evaluation.outcome == .needsInteraction ? [.string("authorize")] : [])),
        ]
        members.append(("explanation", toldTo.uid == 0 ? Self.explanationValue(evaluation.explanation) : .null))
        return .object(members)
    }

    /// An explanation as the interface's `Explanation`: the same tree `capctl check --explain --json` prints.
    static func explanationValue(_ explanation: ConditionExplanation) -> VarlinkValue {
        let outcome =
            switch explanation.outcome {
            case .passed: "passed"
            case .failed: "failed"
            case .undecided: "undecided"
            case .notChecked: "notChecked"
            }
        return .object([
            ("condition", .string(explanation.condition)), ("outcome", .string(outcome)),
            ("reason", .string(explanation.reason)), ("children", .array(explanation.children.map(explanationValue))),
        ])
    }
}
