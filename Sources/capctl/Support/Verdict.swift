import ArgumentParser
import Capabilities
import CapabilityPolicy
import FeatureFlags
import ProcedureCore

/// What capctl says of a capability, gate or flag: one word and one exit status, the same in
/// every subcommand (`status`, `check`, `run`, `watch`, `authorize`, `flags`), so a script
/// reading `capctl status g && work` and one reading `--json` agree (Docs/capctl.md).
enum Verdict: String, Sendable {
    case authorized
    case denied
    /// A capability whose backend cannot answer.
    case unavailable
    /// A gate some of whose requirements could not be decided: it does not hold.
    case undecided
    /// It would hold only after asking, and asking was not allowed.
    case notDetermined
    /// The person dismissed the prompt.
    case dismissed

    /// The exit status documented for this verdict.
    var exitStatus: ExitCode {
        switch self {
        case .authorized: ExitStatus.satisfied
        case .denied, .unavailable, .undecided: ExitStatus.denied
        case .notDetermined: ExitStatus.needsInteraction
        case .dismissed: ExitStatus.dismissed
        }
    }

    /// A capability's verdict.
    init(_ status: CapabilityStatus) {
        switch status.kind {
        case .authorized: self = .authorized
        case .denied: self = .denied
        case .unavailable: self = .unavailable
        case .notDetermined: self = status.cause == .dismissed ? .dismissed : .notDetermined
        }
    }

    /// A gate's verdict, from its decision.
    init(_ outcome: Decision.Outcome) {
        switch outcome {
        case .holds: self = .authorized
        case .fails: self = .denied
        case .undecided: self = .undecided
        case .needsInteraction: self = .notDetermined
        case .dismissed: self = .dismissed
        }
    }

    /// The decision a gate with this verdict came to: its word is the gate's word, the same
    /// capctld sends and the audit trail records. A gate is not a capability: capabilities keep
    /// their status's words.
    var decisionOutcome: Decision.Outcome {
        switch self {
        case .authorized: .holds
        case .denied: .fails
        case .unavailable, .undecided: .undecided
        case .notDetermined: .needsInteraction
        case .dismissed: .dismissed
        }
    }

    /// The word for a gate with this verdict.
    var gateWord: String { decisionOutcome.rawValue }

    /// A flag asked about by name: true holds, an evaluation error is unavailable, anything else is denied.
    init(flag details: FlagEvaluationDetails<FlagValue>) {
        if details.reason == .error {
            self = .unavailable
        } else {
            self = details.value == true ? .authorized : .denied
        }
    }

    /// The status of a command that asked about several things: any that does not hold decides
    /// (1), then a dismissed prompt (3), then one that would need asking (2); else 0.
    static func exitStatus(of verdicts: [Verdict]) -> ExitCode {
        let order: [Verdict] = [.denied, .unavailable, .undecided, .dismissed, .notDetermined]
        return order.first(where: verdicts.contains)?.exitStatus ?? ExitStatus.satisfied
    }
}
