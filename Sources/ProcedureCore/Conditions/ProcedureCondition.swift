/// Something that must hold before a procedure executes.
///
/// A condition is evaluated after the procedure's dependencies finished. It may produce one
/// dependency (for example an authorization request that can prompt a person); the queue runs
/// that dependency only if the procedure's conditions can still pass, then asks the condition
/// again.
///
/// Evaluation happens in two phases:
/// 1. Every condition is checked without interaction. A condition that produces a dependency
///    may answer ``ConditionResult/needsInteraction(_:)`` here ("could pass if we ask").
/// 2. Only if the verdict is still open, produced dependencies run one at a time, and each
///    such condition is checked once more, with ``ConditionContext/allowsInteraction`` false.
///
/// So a condition that produces a dependency is evaluated twice when its dependency runs (once
/// before, once after), and once otherwise. A condition whose check is expensive or has side
/// effects returns false from ``evaluatesBeforeDependency``: it is then taken as "needs
/// interaction" in the first phase without being asked, and evaluated once, after its dependency.
public protocol ProcedureCondition: Sendable {
    /// The name shown in explanations, for example `AuthorizedFor(pam-admin)`.
    var name: String { get }

    /// Whether ``makeDependency(for:)`` can produce a dependency. Defaults to false.
    var producesDependency: Bool { get }

    /// Whether the first phase asks this condition before its dependency runs. Defaults to true;
    /// false for a check worth doing only once, after the dependency (it is still asked in the
    /// first phase when its dependency cannot run, for example under ``Silent``).
    var evaluatesBeforeDependency: Bool { get }

    /// Produces the dependency to run before the final check, or nil. Called at most once per run.
    func makeDependency(for procedure: Procedure) -> Procedure?

    /// Produces the dependency given this condition's first-phase answer (nil when it was not
    /// asked before its dependency), so the dependency can start from what the check found
    /// (``ConditionResult/finding``) instead of finding it out again. Defaults to
    /// ``makeDependency(for:)``; the evaluation calls this one.
    func makeDependency(for procedure: Procedure, after firstAnswer: ConditionResult?) -> Procedure?

    /// Checks the condition and calls `completion` once, on any thread.
    func evaluate(
        for procedure: Procedure,
        context: ConditionContext,
        completion: @escaping @Sendable (ConditionResult) -> Void
    )

    /// Answers at once when the condition can, or returns nil to be asked through
    /// ``evaluate(for:context:completion:)``. Defaults to nil; ``SynchronousCondition``
    /// implements it, which spares evaluation a completion handler per condition.
    func evaluateImmediately(for procedure: Procedure, context: ConditionContext) -> ConditionResult?
}

extension ProcedureCondition {
    public var producesDependency: Bool { false }
    public var evaluatesBeforeDependency: Bool { true }
    public func makeDependency(for procedure: Procedure) -> Procedure? { nil }
    public func makeDependency(for procedure: Procedure, after firstAnswer: ConditionResult?) -> Procedure? {
        makeDependency(for: procedure)
    }
    public func evaluateImmediately(for procedure: Procedure, context: ConditionContext) -> ConditionResult? { nil }
}

/// A condition that answers at once, on the evaluating thread.
public protocol SynchronousCondition: ProcedureCondition {
    /// Checks the condition.
    func evaluate(for procedure: Procedure, context: ConditionContext) -> ConditionResult
}

extension SynchronousCondition {
    public func evaluateImmediately(for procedure: Procedure, context: ConditionContext) -> ConditionResult? {
        evaluate(for: procedure, context: context)
    }

    public func evaluate(
        for procedure: Procedure,
        context: ConditionContext,
        completion: @escaping @Sendable (ConditionResult) -> Void
    ) {
        completion(evaluate(for: procedure, context: context))
    }
}

/// What a condition is told when it is evaluated.
///
/// ```swift
/// // Asking a condition directly, as a test or a status command does: nobody may be prompted.
/// let answer = onACPower.evaluate(for: export, context: ConditionContext(allowsInteraction: false))
/// print(answer.verdict, answer.reason)
/// ```
public struct ConditionContext: Sendable {
    /// Whether someone may still be asked: true in the first phase for a condition whose produced
    /// dependency (an authorization request) will run if it answers
    /// ``ConditionResult/needsInteraction(_:)``. False otherwise: the answer must then be final.
    public let allowsInteraction: Bool

    /// In the final check after a condition's produced dependency ran (an authorization
    /// request), that dependency, finished: its output is what the condition decides on, handed
    /// on rather than read again. Nil otherwise.
    public let producedDependency: Procedure?

    /// The evaluation asking, which tells of its abandonment; nil where nothing can abandon it.
    let evaluation: ConditionEvaluation?

    /// Creates a context.
    public init(allowsInteraction: Bool) {
        self.init(allowsInteraction: allowsInteraction, evaluation: nil)
    }

    init(allowsInteraction: Bool, evaluation: ConditionEvaluation?, producedDependency: Procedure? = nil) {
        self.allowsInteraction = allowsInteraction
        self.evaluation = evaluation
        self.producedDependency = producedDependency
    }

    /// Runs `handler` if the evaluation is abandoned before it decides (the procedure was
    /// cancelled): a condition that started work in
    /// ``ProcedureCondition/evaluate(for:context:completion:)`` stops it there. Runs at once when
    /// the evaluation was abandoned already; never runs once it has decided.
    public func whenAbandoned(_ handler: @escaping @Sendable () -> Void) {
        evaluation?.whenCancelled(handler)
    }
}
