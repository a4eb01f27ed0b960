import DecisionService
import FeatureFlags
import Glibc
import LinuxBackends
import ProcedureCore
import Varlink

extension CheckRequest {
    /// The gate decided by capctld: asked for this process (or, for root, the subject named),
    /// then, where authenticating could open it and prompting is allowed, authorized through
    /// capctld with its questions asked here.
    func run(asking capctld: DecisionClient, route: DecisionRoute) throws {
        if process != nil || user != nil, geteuid() != 0 {
            _ = try SubjectOptions.subject(process: process, user: user)
        }
        let decision: GateDecision
        do throws(DecisionClient.Failure) {
            if let process {
                decision = try capctld.check(
                    gate, forProcess: process.pid, startTime: process.startTime, uid: process.uid)
            } else if let user {
                decision = try capctld.check(gate, forUser: user)
            } else {
                decision = try capctld.check(gate)
            }
        } catch {
            throw Self.failure(error, capctld: capctld)
        }
        var verdict = Verdict(decision)
        if decision.outcome == .needsInteraction, !nonInteractive, process == nil, user == nil {
            let conversation: any PAMConversation =
                passwordStdin ? StandardInputPassword() : TerminalPAMConversation()
            do throws(DecisionClient.Failure) {
                verdict = Verdict(try capctld.authorize(gate: gate, conversation: conversation))
            } catch {
                throw Self.failure(error, capctld: capctld)
            }
        }
        let explanation = decision.explanation.map(ConditionExplanation.init)
        if json {
            var members: [String: FlagValue] = [
                "gate": .string(gate), "status": .string(verdict.gateWord),
                "description": JSONText.optional(decision.description),
                "explanation": explanation.map(CheckCommand.json) ?? .null,
            ]
            members.merge(route.json) { first, _ in first }
            print(JSONText.string(.structure(members)))
        } else {
            print("\(TerminalText.escaped(gate)): \(verdict.gateWord)")
            if explain, let summary = decision.description {
                print("  description: " + TerminalText.escaped(summary))
            }
            if explain { print("  " + TerminalText.escaped(route.sentence)) }
            if explain || verdict != .authorized {
                if let explanation {
                    print(CheckCommand.tree(explanation, explainAll: explain))
                } else {
                    print("  why: capctld tells root only; the reasons are in its audit trail")
                }
            }
        }
        if verdict != .authorized { throw verdict.exitStatus }
    }

    /// A call capctld refused or could not answer, as capctl's error and exit status. Never a
    /// decision: a gate capctld did not decide does not hold.
    static func failure(_ failure: DecisionClient.Failure, capctld: DecisionClient) -> CommandFailure {
        guard case .error(let error) = failure else {
            return CommandFailure(
                message: "capctl: capctld at \(capctld.path) did not decide: \(failure)", status: ExitStatus.denied)
        }
        func text(_ name: String) -> String {
            if case .string(let value)? = error[parameter: name] { return TerminalText.escaped(value) }
            return "?"
        }
        switch error.name {
        case "org.capctl.gates.NoSuchGate":
            return CommandFailure(
                message: "capctl: capctld's policy has no gate \"\(text("gate"))\"", status: ExitStatus.usage)
        case "org.capctl.gates.NoSuchCapability":
            return CommandFailure(
                message: "capctl: capctld's policy has no capability \"\(text("capability"))\"",
                status: ExitStatus.usage)
        case "org.capctl.gates.PolicyUnavailable":
            return CommandFailure(
                message: "capctl: capctld has no policy: \(text("reason"))", status: ExitStatus.configuration)
        case "org.capctl.gates.SubjectMismatch":
            return CommandFailure(message: "capctl: \(text("reason"))", status: ExitStatus.usage)
        case "org.varlink.service.PermissionDenied":
            return CommandFailure(
                message: "capctl: capctld refused: only root may ask that", status: ExitStatus.refused)
        default:
            return CommandFailure(message: "capctl: capctld answered \(error)", status: ExitStatus.denied)
        }
    }
}

extension Verdict {
    /// A decision capctld made.
    init(_ decision: GateDecision) {
        switch decision.outcome {
        case .satisfied: self = .authorized
        case .failed: self = .denied
        case .undecided: self = .undecided
        case .needsInteraction: self = .notDetermined
        }
    }

    /// How an authorization through capctld ended.
    init(_ authorization: DecisionClient.Authorization) {
        switch authorization {
        case .authorized: self = .authorized
        case .dismissed: self = .dismissed
        case .denied("undecided"): self = .undecided
        case .denied("needsInteraction"): self = .notDetermined
        case .denied: self = .denied
        }
    }
}

extension ConditionExplanation {
    /// The tree capctld sent, to print as capctl prints its own.
    init(_ explanation: GateDecision.Explanation) {
        let outcome: Outcome =
            switch explanation.outcome {
            case .passed: .passed
            case .failed: .failed
            case .undecided: .undecided
            case .notChecked: .notChecked
            }
        self.init(
            condition: explanation.condition, outcome: outcome, reason: explanation.reason,
            children: explanation.children.map(ConditionExplanation.init))
    }
}
