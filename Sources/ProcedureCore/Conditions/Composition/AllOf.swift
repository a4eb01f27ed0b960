/// Satisfied when every part is satisfied. Every part is checked, so an explanation lists
/// all that is missing; produced dependencies run only while the whole can still pass.
///
/// ```swift
/// export.addCondition(AllOf(AuthorizedFor(admin), onACPower))
/// ```
public struct AllOf: ProcedureCondition, ComposedCondition {
    /// The parts.
    public var conditions: [any ProcedureCondition] { group.conditions }

    private let group: ConditionGroup

    /// Creates a condition satisfied when all `conditions` are. An empty list is satisfied.
    public init(_ conditions: [any ProcedureCondition]) {
        group = ConditionGroup(rule: .all, conditions: conditions, label: nil)
    }

    /// Creates a condition shown in explanations as `name` (a gate's name, say) instead of
    /// `AllOf(...)`.
    public init(name: String, _ conditions: [any ProcedureCondition]) {
        group = ConditionGroup(rule: .all, conditions: conditions, label: name)
    }

    /// Creates a condition satisfied when all `conditions` are.
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
