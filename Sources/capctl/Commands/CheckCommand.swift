import ArgumentParser
import Capabilities
import CapabilityPolicy
import FeatureFlags
import LinuxBackends
import LinuxPolicy
import ProcedureCore

/// `capctl check GATE`: evaluates a gate, authorizing where needed unless --non-interactive.
struct CheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Evaluate a gate, asking for authorization where needed (unless --non-interactive).",
        discussion:
            "Exits 0 when the gate holds, 1 when it does not, 2 when it would need authorization (with --non-interactive), 3 when the prompt was dismissed. With --for-process or --for-user (root only), decides for that subject without prompting."
    )

    @OptionGroup var options: CommonOptions

    @Argument(help: "The gate's name.")
    var gate: String

    @OptionGroup var prompt: PromptOptions

    @Flag(name: .long, help: "Print every requirement with passed, failed or not checked, and why.")
    var explain = false

    @OptionGroup var flagContext: FlagContextOptions

    @OptionGroup var subjectOptions: SubjectOptions

    @OptionGroup var assumeOptions: AssumeOptions

    @Flag(
        name: .long,
        help: """
            Exit as systemd's ExecCondition= expects: 0 when the gate holds, 1 (skip the unit) when it does \
            not, 255 (fail the unit) on a policy or usage error.
            """)
    var execCondition = false

    func run() async throws {
        try await request.run()
    }

    /// The request these options make (``CheckRequest`` reads the common forms without them).
    var request: CheckRequest {
        Self.request(
            gate: gate, options: options, prompt: prompt, explain: explain, flagContext: flagContext,
            subjectOptions: subjectOptions, assumeOptions: assumeOptions, execCondition: execCondition)
    }

    /// The request of `check` (and `explain`) options.
    static func request(
        gate: String, options: CommonOptions, prompt: PromptOptions, explain: Bool, flagContext: FlagContextOptions,
        subjectOptions: SubjectOptions, assumeOptions: AssumeOptions, execCondition: Bool = false
    ) -> CheckRequest {
        var request = CheckRequest(gate: gate)
        request.policy = options.policy
        request.json = options.json
        request.nonInteractive = !prompt.allowsInteraction
        request.passwordStdin = prompt.password.passwordStdin
        request.explain = explain
        request.context = flagContext.context
        request.targetingKey = flagContext.targetingKey
        request.process = subjectOptions.process
        request.user = subjectOptions.user
        request.assume = assumeOptions.assume
        request.assumeFlags = assumeOptions.assumeFlag
        request.execCondition = execCondition
        return request
    }

    /// capctl's exit status as an `ExecCondition=` status: systemd starts the unit on 0, skips it
    /// on 1 to 254 and fails it on 255, so a broken policy (78) or a mistyped command line (64)
    /// must not read as "skip".
    static func execConditionStatus(_ status: Int32) -> Int32 {
        switch status {
        case ExitStatus.satisfied.rawValue: 0
        case ExitStatus.denied.rawValue, ExitStatus.needsInteraction.rawValue, ExitStatus.dismissed.rawValue: 1
        default: 255
        }
    }

    struct Outcome {
        /// The gate's evaluation, whose decision every route words the same.
        var evaluation: GateEvaluation
        /// The policy, whose `audit:` says which decisions are recorded.
        var policy: Policy
        /// What was assumed in place of real statuses and values (`--assume`).
        var assumptions = Assumptions()

        var verdict: Verdict { Verdict(evaluation.decisionOutcome) }
        var explanation: ConditionExplanation { evaluation.explanation }

        /// Records this decision in the audit trail.
        func audit(action: String, gate: String, subject: Subject?, command: [String]? = nil) {
            Audit.record(record(action: action, subject: subject, command: command), policy: policy)
        }

        /// The audit record of this decision: the one every route writes.
        func record(action: String, subject: Subject?, command: [String]? = nil) -> AuditRecord {
            var record = AuditRecord(
                action: action, evaluation: evaluation, policy: policy, subject: subject, command: command)
            record.traceID = TraceEnvironment.traceParent?.traceID
            return record
        }
    }

    /// Evaluates `gate` with the policy's one evaluator: asking for authorization where the gate
    /// could still pass when interaction is allowed, reading current statuses when it is not.
    static func evaluate(
        gate: String, policyFiles: [String], allowingInteraction: Bool, context: FlagEvaluationContext? = nil,
        policyOptions: PolicyOptions = PolicyOptions(watchesFlagFiles: false, pollsFlagServices: false),
        subject: Subject? = nil, assume: [String] = [], assumeFlags: [String] = []
    ) async throws -> Outcome {
        let policy = try await PolicyContext.load(
            policyFiles: policyFiles, policyOptions: policyOptions, deciding: [gate])
        FlagsCommand.warn(about: policy.flags)
        let assumptions = try AssumeOptions.assumptions(assume: assume, assumeFlags: assumeFlags, policy: policy.policy)
        let evaluation: GateEvaluation
        do {
            evaluation =
                allowingInteraction
                ? try await policy.evaluateAllowingInteraction(gate: gate, context: context, assuming: assumptions)
                : try await policy.evaluate(gate: gate, context: context, subject: subject, assuming: assumptions)
        } catch {
            throw CommandFailure(message: "capctl: \(error)", status: ExitStatus.usage)
        }
        return Outcome(evaluation: evaluation, policy: policy.policy, assumptions: assumptions)
    }

    /// The explanation as an indented tree, like `systemd-analyze condition`.
    static func tree(_ explanation: ConditionExplanation, explainAll: Bool) -> String {
        var lines: [String] = []
        func walk(_ node: ConditionExplanation, depth: Int) {
            let mark =
                switch node.outcome {
                case .passed: "passed"
                case .failed: "failed"
                case .undecided: "undecided"
                case .notChecked: "not checked"
                }
            if explainAll || node.outcome != .passed {
                lines.append(
                    String(repeating: "  ", count: depth + 1)
                        + TerminalText.escaped("\(node.condition): \(mark): \(node.reason)"))
            }
            // The short form follows only what did not pass: below a part that passed (a `not`
            // over a flag that is off), a failed part is no cause and would read as one.
            guard explainAll || node.outcome != .passed else { return }
            for child in node.children { walk(child, depth: depth + 1) }
        }
        walk(explanation, depth: 0)
        return lines.joined(separator: "\n")
    }

    static func json(_ explanation: ConditionExplanation) -> FlagValue {
        .structure([
            "condition": .string(explanation.condition),
            "outcome": .string(explanation.outcome == .notChecked ? "notChecked" : explanation.outcome.rawValue),
            "reason": .string(explanation.reason),
            "children": .list(explanation.children.map(json)),
        ])
    }
}
