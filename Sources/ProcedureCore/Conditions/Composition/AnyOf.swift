/// Satisfied when at least one part is satisfied, like systemd's `|` triggering conditions.
/// An empty list is never satisfied (fail closed).
///
/// ```swift
/// // Runs on AC power, or on battery while it is not low.
/// export.addCondition(AnyOf(onACPower, Negated(batteryLow)))
/// ```
public struct AnyOf: ProcedureCondition, ComposedCondition {
    /// The alternatives.
    public var conditions: [any ProcedureCondition] { group.conditions }

    private let group: ConditionGroup

    /// Creates a condition satisfied when any of `conditions` is.
    public init(_ conditions: [any ProcedureCondition]) {
        group = ConditionGroup(rule: .any, conditions: conditions, label: nil)
    }

    /// Creates a condition shown in explanations as `name` (a gate's name, say) instead of
    /// `AnyOf(...)`.
    public init(name: String, _ conditions: [any ProcedureCondition]) {
        group = ConditionGroup(rule: .any, conditions: conditions, label: name)
    }

    /// Creates a condition satisfied when any of `conditions` is.
    public init(_ conditions: any ProcedureCondition...) { self.init(conditions) }

    public var name: String { group.name }

    public var producesDependency: Bool { group.producesDependency }

    public func evaluate(
        for procedure: Procedure, context: ConditionContext,
        completion: @escaping @Sendable (ConditionResult) -> Void
    ) {
        evaluateComposition(for: procedure, context: context, completion: completion)
    }

    func node(in tree: inout ConditionTree, silenced: Bool) -> ConditionTree.Node {
        group.node(in: &tree, silenced: silenced)
    }
}
