import ProcedureCore
import Synchronization
import Tracing

/// The child spans of one gate decision, one per requirement part (a capability, a flag), made
/// when ``PolicyOptions/tracesRequirements`` asks for them and a tracer is bootstrapped.
///
/// Conditions answer on whatever thread their check completes on, where the decision's task-local
/// span is not current: the gate's span context is kept here, set once the gate's span has
/// started, and each part's span is made a child of it.
final class RequirementSpans: Sendable {
    private let parent = Mutex<ServiceContext?>(nil)

    /// Called inside the gate's span: the parts' spans become children of it.
    func enterCurrentSpan() {
        guard let current = ServiceContext.current else { return }
        parent.withLock { $0 = current }
    }

    /// The context a part's span starts under: the gate's span, or outside a decision (a
    /// procedure gated on the gate's condition) the caller's current context.
    var context: ServiceContext {
        parent.withLock { $0 } ?? ServiceContext.current ?? .topLevel
    }
}

/// A requirement part whose every check is a span of its own, `capability NAME` or `flag KEY`,
/// with the verdict (`capctl.result`), its reason when it does not hold, and an error status when
/// it could not be decided. Everything else is the part's: its name in explanations, its
/// dependency (a login it asks for), so a traced gate decides exactly as an untraced one.
struct TracedRequirement: ProcedureCondition {
    enum Part: Sendable {
        case capability(String)
        case flag(String)
    }

    let requirement: any ProcedureCondition
    let spans: RequirementSpans
    /// The span's name and first attributes, made once for every check of the part.
    private let operation: String
    private let attributes: SpanAttributes

    init(requirement: any ProcedureCondition, part: Part, spans: RequirementSpans) {
        self.requirement = requirement
        self.spans = spans
        switch part {
        case .capability(let name):
            operation = "capability \(name)"
            attributes = ["capctl.requirement": .string(name), "capctl.capability": .string(name)]
        case .flag(let key):
            operation = "flag \(key)"
            attributes = ["capctl.requirement": .string(key), "feature_flag.key": .string(key)]
        }
    }

    var name: String { requirement.name }
    var producesDependency: Bool { requirement.producesDependency }
    var evaluatesBeforeDependency: Bool { requirement.evaluatesBeforeDependency }

    func makeDependency(for procedure: Procedure) -> Procedure? {
        requirement.makeDependency(for: procedure)
    }

    func makeDependency(for procedure: Procedure, after firstAnswer: ConditionResult?) -> Procedure? {
        requirement.makeDependency(for: procedure, after: firstAnswer)
    }

    // Not `evaluateImmediately`: a span starts before the check, and an immediate answer that is
    // not there would leave one started for nothing. Every check comes through here.
    func evaluate(
        for procedure: Procedure, context: ConditionContext, completion: @escaping @Sendable (ConditionResult) -> Void
    ) {
        let span = startSpan()
        let ended = Atomic(false)
        let finish: @Sendable (ConditionResult?) -> Void = { result in
            guard !ended.exchange(true, ordering: .acquiringAndReleasing) else { return }
            Self.describe(span, result)
            span.end()
        }
        // An abandoned check may never complete: its span ends then, without a verdict.
        context.whenAbandoned { finish(nil) }
        if let answer = requirement.evaluateImmediately(for: procedure, context: context) {
            finish(answer)
            completion(answer)
            return
        }
        requirement.evaluate(for: procedure, context: context) { answer in
            finish(answer)
            completion(answer)
        }
    }

    private func startSpan() -> any Span {
        let span = InstrumentationSystem.tracer.startAnySpan(operation, context: spans.context, ofKind: .internal)
        span.attributes = attributes
        return span
    }

    private static func describe(_ span: any Span, _ result: ConditionResult?) {
        guard let result else {
            span.attributes["capctl.result"] = "abandoned"
            return
        }
        let verdict: String =
            switch result.verdict {
            case .satisfied: "satisfied"
            case .failed: "failed"
            case .undecided: "undecided"
            case .needsInteraction: "needs interaction"
            }
        span.attributes["capctl.result"] = verdict
        if result.verdict != .satisfied { span.attributes["capctl.reason"] = result.reason }
        if result.verdict == .undecided {
            span.setStatus(SpanStatus(code: .error, message: result.reason))
        }
    }
}
