/// Satisfied when at least one part is satisfied, like systemd's `|` triggering conditions.
/// An empty list is never satisfied (fail closed).
public struct AnyOf: ProcedureCondition, ComposedCondition {
    /// The alternatives.
    public let conditions: [any ProcedureCondition]

    /// Creates a condition satisfied when any of `conditions` is.
    public init(_ conditions: [any ProcedureCondition]) {
        self.conditions = conditions
        label = nil
    }

    /// Creates a condition shown in explanations as `name` (a gate's name, say) instead of
    /// `AnyOf(...)`.
    public init(name: String, _ conditions: [any ProcedureCondition]) {
        self.conditions = conditions
        label = name
    }

    private let label: String?

    /// Creates a condition satisfied when any of `conditions` is.
    public init(_ conditions: any ProcedureCondition...) { self.init(conditions) }

    public var name: String { label ?? "AnyOf(" + conditions.map(\.name).joined(separator: ", ") + ")" }

    public var producesDependency: Bool { conditions.contains(where: \.producesDependency) }

    public func evaluate(
        for procedure: Procedure, context: ConditionContext,
        completion: @escaping @Sendable (ConditionResult) -> Void
    ) {
        evaluateComposition(for: procedure, context: context, completion: completion)
    }

    func node(in tree: inout ConditionTree, silenced: Bool) -> ConditionTree.Node {
        .anyOf(name: name, conditions.map { tree.add($0, silenced: silenced) })
    }
}
