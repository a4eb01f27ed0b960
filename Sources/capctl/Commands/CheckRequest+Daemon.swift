import CapabilityPolicy
import DecisionService
import FeatureFlags
import Glibc
import LinuxBackends
import ProcedureCore
import SystemPackage
import Varlink

extension CheckRequest {
    /// The gate decided by capctld: asked for this process (or, for root, the subject named),
    /// then, where authenticating could open it and prompting is allowed, authorized through
    /// capctld with its questions asked here.
    ///
    /// With `started`, the `Check` was sent already, by capctl's front on the client's connection:
    /// its reply is read instead.
    func run(asking capctld: DecisionClient, route: DecisionRoute, started: VarlinkClient.StartedCall? = nil) throws {
        if process != nil || user != nil, geteuid() != 0 {
            _ = try SubjectOptions.subject(process: process, user: user)
        }
        let decision: Decision
        do throws(DecisionClient.Failure) {
            if let started {
                decision = try capctld.checkReply(to: started)
            } else if let process {
                decision = try capctld.check(
                    gate, forProcess: process.pid, startTime: process.startTime, uid: process.uid,
                    trace: TraceEnvironment.traceParent)
            } else if let user {
                decision = try capctld.check(gate, forUser: user, trace: TraceEnvironment.traceParent)
            } else {
                decision = try capctld.check(gate, trace: TraceEnvironment.traceParent)
            }
        } catch {
            throw Self.failure(error, capctld: capctld.path)
        }
        var final = decision
        var unanswered: String?
        if decision.outcome == .needsInteraction, !nonInteractive, process == nil, user == nil {
            let conversation = ConversationRecorder(
                passwordStdin ? StandardInputPassword() : TerminalPAMConversation(purpose: gate))
            defer { unanswered = conversation.unanswerable }
            do throws(DecisionClient.Failure) {
                final = try capctld.authorize(gate: gate, conversation: conversation)
            } catch {
                throw Self.failure(error, capctld: capctld.path)
            }
        }
        let verdict = Verdict(final.outcome)
        let explanation = final.explanation ?? decision.explanation
        if json {
            var members: [String: FlagValue] = [
                "gate": .string(gate), "status": .string(verdict.gateWord),
                "description": JSONText.optional(decision.description),
                "explanation": explanation.map(CheckCommand.json) ?? .null,
            ]
            if final.outcome == .dismissed, let unanswered { members["unanswered"] = .string(unanswered) }
            members.merge(route.json) { first, _ in first }
            print(JSONText.string(.structure(members)))
        } else {
            print("\(TerminalText.escaped(gate)): \(verdict.gateWord)")
            if explain, let summary = decision.description {
                print("  description: " + TerminalText.escaped(summary))
            }
            if explain { print("  " + TerminalText.escaped(route.sentence)) }
            // Root is told when capctld answers from a policy its files no longer load to.
            if explain, geteuid() == 0, let warning = try? capctld.servedPolicy().staleWarning {
                for line in warning.split(separator: "\n") { print(TerminalText.escaped(String(line))) }
            }
            // Why this process could not answer is the caller's own part: told whoever asks.
            if final.outcome == .dismissed, let unanswered {
                print("  dismissed here: " + TerminalText.escaped(unanswered))
            }
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

    /// The check capctl's front began (``StartedCheck``), finished: its reply read from the
    /// connection the front hands over, and told as any check through capctld is.
    func run(continuing started: StartedCheck) throws {
        // The front sends only a plain check, where capctl itself would ask capctld: anything
        // else is a front and a library that disagree, and decides nothing.
        guard isFrontForm, getenv("TRACEPARENT") == nil,
            case .ask(let path) = DecisionRoute.socket(policy: policy)
        else {
            try? started.connection.close()
            throw CommandFailure(
                message: "capctl: capctl's front began a check capctl would not have sent; nothing was decided",
                status: ExitStatus.software)
        }
        let capctld: DecisionClient
        do throws(DecisionClient.Failure) {
            capctld = try DecisionClient(adopting: started.connection, path: path)
        } catch {
            throw Self.failure(error, capctld: path)
        }
        try run(asking: capctld, route: .daemon(capctld), started: started.call)
    }

    /// Whether this is the form of check capctl's front sends itself: a gate, and at most
    /// `--non-interactive` and `--exec-condition`.
    var isFrontForm: Bool {
        var plain = CheckRequest(gate: gate)
        (plain.nonInteractive, plain.execCondition) = (nonInteractive, execCondition)
        return self == plain
    }

    /// A call capctld refused or could not answer, as capctl's error and exit status. Never a
    /// decision: a gate capctld did not decide does not hold.
    static func failure(_ failure: DecisionClient.Failure, capctld path: String) -> CommandFailure {
        guard case .error(let error) = failure else {
            return CommandFailure(
                message: "capctl: capctld at \(path) did not decide: \(failure)", status: ExitStatus.denied)
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

/// A `Check` capctl's front sent on its connection to capctld before loading capctl: capctl
/// reads the reply (`capctl_check_sent`).
struct StartedCheck {
    /// The connection, now capctl's.
    let connection: FileDescriptor
    let call: VarlinkClient.StartedCall
}
