/// Satisfied exactly when the wrapped condition is not. When the wrapped condition is
/// satisfied, it fails with a reason naming it. It keeps the wrapped condition's produced
/// dependency; wrap it in ``Silent`` to check without asking.
///
/// ```swift
/// export.addCondition(Negated(batteryLow))  // runs only while the battery is not low
/// ```
public struct Negated: ProcedureCondition, ComposedCondition {
    /// The wrapped condition.
    public let condition: any ProcedureCondition

    /// Creates the negation of `condition`.
    public init(_ condition: any ProcedureCondition) { self.condition = condition }

    public var name: String { "Negated(\(condition.name))" }

    public var producesDependency: Bool { condition.producesDependency }

    public func evaluate(
        for procedure: Procedure, context: ConditionContext,
        completion: @escaping @Sendable (ConditionResult) -> Void
    ) {
        evaluateComposition(for: procedure, context: context, completion: completion)
    }

    func node(in tree: inout ConditionTree, silenced: Bool) -> ConditionTree.Node {
        .negated(name: name, tree.add(condition, silenced: silenced))
    }
}
