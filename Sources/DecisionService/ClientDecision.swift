import Capabilities
import CapabilityPolicy
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
        members.append(("explanation", toldTo.uid == 0 ? .string(evaluation.explanation.description) : .null))
        return .object(members)
    }
}
