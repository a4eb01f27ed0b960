/// A procedure's conditions flattened into leaves and a tree of compositions over them,
/// so that evaluation can reach the leaves that produce dependencies and explain every node.
struct ConditionTree: Sendable {
    indirect enum Node: Sendable {
        case leaf(Int)
        case allOf(name: String, [Node])
        case anyOf(name: String, [Node])
        case negated(name: String, Node)
        case silent(name: String, Node)
    }

    struct Leaf: Sendable {
        let condition: any ProcedureCondition
        /// Produces a dependency that may run: not under a `Silent`.
        let isInteractive: Bool
    }

    private(set) var leaves: [Leaf] = []
    private(set) var root: Node = .allOf(name: "", [])

    /// The tree for a procedure's conditions, all of which must pass.
    init(conditions: [any ProcedureCondition]) {
        var children: [Node] = []
        children.reserveCapacity(conditions.count)
        for condition in conditions { children.append(add(condition, silenced: false)) }
        root = .allOf(name: "all conditions", children)
    }

    /// The tree for a single (possibly composed) condition.
    init(condition: any ProcedureCondition) {
        root = add(condition, silenced: false)
    }

    mutating func add(_ condition: any ProcedureCondition, silenced: Bool) -> Node {
        if let composed = condition as? any ComposedCondition {
            return composed.node(in: &self, silenced: silenced)
        }
        leaves.append(Leaf(condition: condition, isInteractive: !silenced && condition.producesDependency))
        return .leaf(leaves.count - 1)
    }

    /// A leaf's answer as the tree counts it: only an interactive leaf may stay undetermined,
    /// and only before its dependency ran. Anything else that is not known fails closed.
    static func normalize(_ result: ConditionResult, mayStayUndetermined: Bool) -> ConditionResult {
        guard result.verdict == .undetermined, !mayStayUndetermined else { return result }
        return .failed("not determined without asking: \(result.reason)")
    }

    // MARK: Verdicts

    /// The three-valued verdict of `node` given the leaves' results (nil: not answered yet).
    func verdict(of node: Node, results: [ConditionResult?]) -> ConditionResult.Verdict {
        switch node {
        case .leaf(let index):
            return results[index]?.verdict ?? .undetermined
        case .allOf(_, let children):
            var open = false
            for child in children {
                switch verdict(of: child, results: results) {
                case .failed: return .failed
                case .undetermined: open = true
                case .satisfied: break
                }
            }
            return open ? .undetermined : .satisfied
        case .anyOf(_, let children):
            var open = false
            for child in children {
                switch verdict(of: child, results: results) {
                case .satisfied: return .satisfied
                case .undetermined: open = true
                case .failed: break
                }
            }
            return open ? .undetermined : .failed
        case .negated(_, let inner):
            switch verdict(of: inner, results: results) {
            case .satisfied: return .failed
            case .failed: return .satisfied
            case .undetermined: return .undetermined
            }
        case .silent(_, let inner):
            return verdict(of: inner, results: results)
        }
    }

    /// The first interactive leaf, in tree order, still undetermined and not yet asked.
    func nextLeafToAsk(results: [ConditionResult?], asked: [Bool]) -> Int? {
        for index in leaves.indices
        where leaves[index].isInteractive && !asked[index] && results[index]?.verdict == .undetermined {
            return index
        }
        return nil
    }

    // MARK: Explanations

    func explain(results: [ConditionResult?]) -> ConditionExplanation {
        explain(root, results: results)
    }

    private func explain(_ node: Node, results: [ConditionResult?]) -> ConditionExplanation {
        let outcome = Self.outcome(verdict(of: node, results: results))
        switch node {
        case .leaf(let index):
            let name = leaves[index].condition.name
            guard let result = results[index] else {
                return ConditionExplanation(condition: name, outcome: .notChecked, reason: "not evaluated")
            }
            let reason = outcome == .notChecked ? "not asked, the verdict did not need it: \(result.reason)" : result.reason
            return ConditionExplanation(condition: name, outcome: outcome, reason: reason, error: result.error)
        case .allOf(let name, let children):
            let parts = children.map { explain($0, results: results) }
            let failed = parts.filter { $0.outcome == .failed }.count
            let reason =
                switch outcome {
                case .passed: parts.isEmpty ? "no conditions" : "all \(parts.count) passed"
                case .failed: "\(failed) of \(parts.count) failed"
                case .notChecked: "not decided"
                }
            return ConditionExplanation(condition: name, outcome: outcome, reason: reason, children: parts)
        case .anyOf(let name, let children):
            let parts = children.map { explain($0, results: results) }
            let reason: String =
                switch outcome {
                case .passed: "passed: " + (parts.first(where: \.passed)?.condition ?? "")
                case .failed: parts.isEmpty ? "no alternatives" : "none of \(parts.count) passed"
                case .notChecked: "not decided"
                }
            return ConditionExplanation(condition: name, outcome: outcome, reason: reason, children: parts)
        case .negated(let name, let inner):
            let part = explain(inner, results: results)
            let reason: String =
                switch outcome {
                case .passed: "\(part.condition) is not satisfied"
                case .failed: "\(part.condition) is satisfied"
                case .notChecked: "not decided"
                }
            return ConditionExplanation(condition: name, outcome: outcome, reason: reason, children: [part])
        case .silent(let name, let inner):
            let part = explain(inner, results: results)
            return ConditionExplanation(
                condition: name, outcome: outcome, reason: "checked without asking: \(part.reason)",
                error: part.error, children: [part])
        }
    }

    private static func outcome(_ verdict: ConditionResult.Verdict) -> ConditionExplanation.Outcome {
        switch verdict {
        case .satisfied: .passed
        case .failed: .failed
        case .undetermined: .notChecked
        }
    }
}

/// A condition made of other conditions, which evaluation looks through to reach the leaves.
protocol ComposedCondition: ProcedureCondition {
    func node(in tree: inout ConditionTree, silenced: Bool) -> ConditionTree.Node
}

extension ComposedCondition {
    /// A composed condition evaluated on its own (outside a procedure's evaluation): its leaves
    /// are checked once, and produced dependencies do not run.
    func evaluateComposition(
        for procedure: Procedure,
        context: ConditionContext,
        completion: @escaping @Sendable (ConditionResult) -> Void
    ) {
        let tree = ConditionTree(condition: self)
        let collector = LeafResultCollector(tree: tree) { results in
            let verdict = tree.verdict(of: tree.root, results: results)
            let explanation = tree.explain(results: results)
            completion(ConditionResult(verdict: verdict, reason: explanation.reason, error: explanation.error))
        }
        collector.evaluateAll(for: procedure, allowUndetermined: context.mayInteractLater)
    }
}
