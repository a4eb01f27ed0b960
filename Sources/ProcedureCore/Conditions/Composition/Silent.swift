/// Evaluates the wrapped condition without its produced dependency: it never requests
/// authorization or prompts, it only reads the current state. Whatever could only pass by
/// asking counts as not satisfied.
///
/// ```swift
/// // Uses a login kept from earlier; never asks for one.
/// export.addCondition(Silent(AuthorizedFor(admin)))
/// ```
public struct Silent: ProcedureCondition, ComposedCondition {
    /// The wrapped condition.
    public let condition: any ProcedureCondition

    /// Creates a silent version of `condition`.
    public init(_ condition: any ProcedureCondition) { self.condition = condition }

    public var name: String { "Silent(\(condition.name))" }

    public var producesDependency: Bool { false }

    public func evaluate(
        for procedure: Procedure, context: ConditionContext,
        completion: @escaping @Sendable (ConditionResult) -> Void
    ) {
        evaluateComposition(for: procedure, context: context, silenced: true, completion: completion)
    }

    func node(in tree: inout ConditionTree, silenced: Bool) -> ConditionTree.Node {
        .silent(name: name, tree.add(condition, silenced: true))
    }
}
