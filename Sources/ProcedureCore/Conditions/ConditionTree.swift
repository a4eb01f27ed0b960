/// Conditions flattened into leaves, with the compositions over them, so that evaluation can
/// reach the leaves that produce dependencies and explain every node.
///
/// The common case, a list of plain conditions that must all pass, keeps the list as it is
/// and has no node tree at all.
struct ConditionTree: Sendable {
    indirect enum Node: Sendable {
        case leaf(Int)
        case allOf(name: String, [Node])
        case anyOf(name: String, [Node])
        case negated(name: String, Node)
        case silent(name: String, Node)
    }

    private(set) var leaves: [any ProcedureCondition] = []
    /// Leaves under a `Silent`: they never produce a dependency.
    private(set) var silencedLeaves: Set<Int> = []
    /// Nil for a flat list of leaves that must all pass.
    private(set) var root: Node?

    static let rootName = "all conditions"

    /// The tree for a procedure's conditions, all of which must pass. `containsCompositions`
    /// says whether any is an AllOf, AnyOf, Negated or Silent; without them the list is used as is.
    init(conditions: [any ProcedureCondition], containsCompositions: Bool) {
        guard containsCompositions else {
            leaves = conditions
            return
        }
        var children: [Node] = []
        for condition in conditions { children.append(add(condition, silenced: false)) }
        root = .allOf(name: Self.rootName, children)
    }

    /// The tree for a single (possibly composed) condition, evaluated on its own.
    init(condition: any ProcedureCondition, silenced: Bool) {
        root = add(condition, silenced: silenced)
    }

    mutating func add(_ condition: any ProcedureCondition, silenced: Bool) -> Node {
        if let composed = Self.composition(of: condition) {
            return composed.node(in: &self, silenced: silenced)
        }
        leaves.append(condition)
        if silenced { silencedLeaves.insert(leaves.count - 1) }
        return .leaf(leaves.count - 1)
    }

    /// The condition as a composition, if it is one. Only this module's four compositions
    /// exist, so comparing type identities first spares every other condition a dynamic cast.
    static func composition(of condition: any ProcedureCondition) -> (any ComposedCondition)? {
        guard isComposition(type(of: condition)) else { return nil }
        // Casts to the four types: a cast to `any ComposedCondition` scans every conformance
        // record of the binary (twice: the existential, then its value) at a process's first check.
        return switch condition {
        case let allOf as AllOf: allOf
        case let anyOf as AnyOf: anyOf
        case let negated as Negated: negated
        case let silent as Silent: silent
        default: nil
        }
    }

    /// Whether conditions of this type are one of the four compositions.
    static func isComposition(_ type: any ProcedureCondition.Type) -> Bool {
        isComposition(ObjectIdentifier(type))
    }

    /// Whether conditions of the type `type` identifies are one of the four compositions.
    static func isComposition(_ type: ObjectIdentifier) -> Bool {
        switch type {
        case ObjectIdentifier(AllOf.self), ObjectIdentifier(AnyOf.self), ObjectIdentifier(Negated.self),
            ObjectIdentifier(Silent.self):
            true
        default: false
        }
    }

    /// Whether leaf `index` may produce a dependency in this tree.
    func isInteractive(_ index: Int) -> Bool {
        (silencedLeaves.isEmpty || !silencedLeaves.contains(index)) && leaves[index].producesDependency
    }

    /// A leaf's answer as the tree counts it: only an interactive leaf may stay undetermined,
    /// and only before its dependency ran. Anything else that is not known fails closed.
    static func normalize(_ result: ConditionResult, mayStayOpen: Bool) -> ConditionResult {
        guard result.verdict == .needsInteraction, !mayStayOpen else { return result }
        return .failed("not asked: \(result.reason)")
    }

    // MARK: Verdicts

    /// The verdict of the whole tree given the leaves' results (nil: no answer yet, still open).
    func verdict(results: [ConditionResult?]) -> ConditionResult.Verdict {
        guard let root else {
            var combined = Combination(all: true)
            for result in results {
                combined.add(result?.verdict ?? .needsInteraction)
                if combined.isFinal { break }
            }
            return combined.verdict
        }
        return verdict(of: root, results: results)
    }

    private func verdict(of node: Node, results: [ConditionResult?]) -> ConditionResult.Verdict {
        switch node {
        case .leaf(let index):
            return results[index]?.verdict ?? .needsInteraction
        case .allOf(_, let children), .anyOf(_, let children):
            let isAll: Bool = if case .allOf = node { true } else { false }
            var combined = Combination(all: isAll)
            for child in children {
                combined.add(verdict(of: child, results: results))
                if combined.isFinal { break }
            }
            return combined.verdict
        case .negated(_, let inner):
            switch verdict(of: inner, results: results) {
            case .satisfied: return .failed
            case .failed: return .satisfied
            case let other: return other
            }
        case .silent(_, let inner):
            return verdict(of: inner, results: results)
        }
    }

    /// All-of and any-of over four verdicts, in Kleene's three-valued logic with "could pass by
    /// asking" in between: a definite answer of the deciding kind wins (failed for all-of,
    /// satisfied for any-of); otherwise all-of is undecided before it is open, and any-of is
    /// open before it is undecided (asking could still make it pass).
    private struct Combination {
        let all: Bool
        var sawUndecided = false
        var sawOpen = false
        var decided = false

        init(all: Bool) { self.all = all }

        var isFinal: Bool { decided }

        mutating func add(_ verdict: ConditionResult.Verdict) {
            switch verdict {
            case .failed where all, .satisfied where !all: decided = true
            case .undecided: sawUndecided = true
            case .needsInteraction: sawOpen = true
            case .failed, .satisfied: break
            }
        }

        var verdict: ConditionResult.Verdict {
            if all {
                if decided { return .failed }
                return sawUndecided ? .undecided : (sawOpen ? .needsInteraction : .satisfied)
            }
            if decided { return .satisfied }
            return sawOpen ? .needsInteraction : (sawUndecided ? .undecided : .failed)
        }
    }

    /// The first interactive leaf, in tree order, still undetermined and not yet asked.
    func nextLeafToAsk(results: [ConditionResult?], asked: [Bool]) -> Int? {
        leaves.indices.first { index in
            !asked[index] && results[index]?.verdict == .needsInteraction && isInteractive(index)
        }
    }

    // MARK: Explanations

    func explain(results: [ConditionResult?]) -> ConditionExplanation {
        guard let root else {
            return explain(.allOf(name: Self.rootName, leaves.indices.map(Node.leaf)), results: results)
        }
        return explain(root, results: results)
    }

    private func explain(_ node: Node, results: [ConditionResult?]) -> ConditionExplanation {
        let outcome = Self.outcome(verdict(of: node, results: results))
        switch node {
        case .leaf(let index):
            let name = leaves[index].name
            guard let result = results[index] else {
                return ConditionExplanation(condition: name, outcome: .notChecked, reason: "not evaluated")
            }
            // Only a leaf that would ask reads not checked with a result: its reason says so (wouldAsk).
            let reason =
                outcome == .notChecked ? ConditionExplanation.notAskedPrefix + result.reason : result.reason
            return ConditionExplanation(condition: name, outcome: outcome, reason: reason, error: result.error)
        case .allOf(let name, let children):
            let parts = children.map { explain($0, results: results) }
            // A named group of one (a gate naming another) reads as its only part.
            let reason =
                switch outcome {
                case _ where parts.count == 1: parts[0].reason
                case .passed: parts.isEmpty ? "no conditions" : "all \(parts.count) passed"
                case .failed: "\(parts.count { $0.outcome == .failed }) of \(parts.count) failed"
                case .undecided: "\(parts.count { $0.outcome == .undecided }) of \(parts.count) could not be decided"
                case .notChecked: "holds only after asking"
                }
            return ConditionExplanation(condition: name, outcome: outcome, reason: reason, children: parts)
        case .anyOf(let name, let children):
            let parts = children.map { explain($0, results: results) }
            let reason: String =
                switch outcome {
                case .passed: "passed: " + (parts.first(where: \.passed)?.condition ?? "")
                case .failed: parts.isEmpty ? "no alternatives" : "none of \(parts.count) passed"
                case .undecided:
                    "none of \(parts.count) passed, and \(parts.count { $0.outcome == .undecided }) could not be decided"
                case .notChecked: "holds only after asking"
                }
            return ConditionExplanation(condition: name, outcome: outcome, reason: reason, children: parts)
        case .negated(let name, let inner):
            let part = explain(inner, results: results)
            let reason: String =
                switch outcome {
                case .passed: "\(part.condition) is not satisfied"
                case .failed: "\(part.condition) is satisfied"
                case .undecided: "\(part.condition) could not be decided, so neither can its negation"
                case .notChecked: "decided only after asking"
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
        case .undecided: .undecided
        case .needsInteraction: .notChecked
        }
    }
}

/// The outcome of one evaluation, explained on demand (most procedures never ask).
struct ConditionRecord: Sendable {
    let tree: ConditionTree
    let results: [ConditionResult?]

    var explanation: ConditionExplanation { tree.explain(results: results) }
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
        silenced: Bool = false,
        completion: @escaping @Sendable (ConditionResult) -> Void
    ) {
        let tree = ConditionTree(condition: self, silenced: silenced || !context.allowsInteraction)
        let evaluation = ConditionEvaluation(procedure: procedure, tree: tree, runsDependencies: false) { record, _ in
            let explanation = record.explanation
            let verdict = tree.verdict(results: record.results)
            completion(ConditionResult(verdict: verdict, reason: explanation.reason, error: explanation.error))
        }
        context.whenAbandoned { evaluation.cancel() }
        evaluation.start()
    }
}
