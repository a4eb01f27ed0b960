/// What ``AllOf`` and ``AnyOf`` share: their parts, an optional name, and how they appear in a
/// condition tree. The two public types differ only in the rule that combines the parts (the
/// tree's `allOf` and `anyOf` nodes) and in their documentation.
struct ConditionGroup: Sendable {
    enum Rule: Sendable {
        case all, any

        var typeName: String { self == .all ? "AllOf" : "AnyOf" }
    }

    let rule: Rule
    let conditions: [any ProcedureCondition]
    /// A name given for explanations (a gate's name), instead of the parts' names.
    let label: String?

    var name: String { label ?? rule.typeName + "(" + conditions.map(\.name).joined(separator: ", ") + ")" }

    var producesDependency: Bool { conditions.contains(where: \.producesDependency) }

    func node(in tree: inout ConditionTree, silenced: Bool) -> ConditionTree.Node {
        let children = conditions.map { tree.add($0, silenced: silenced) }
        return switch rule {
        case .all: .allOf(name: name, children)
        case .any: .anyOf(name: name, children)
        }
    }
}
