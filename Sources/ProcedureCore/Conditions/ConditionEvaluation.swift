import Synchronization

/// Gathers the first answer of every leaf of a tree, then calls back once.
final class LeafResultCollector: Sendable {
    private struct State {
        var results: [ConditionResult?]
        var outstanding: Int
    }

    private let tree: ConditionTree
    private let state: Mutex<State>
    private let completion: @Sendable ([ConditionResult?]) -> Void

    init(tree: ConditionTree, completion: @escaping @Sendable ([ConditionResult?]) -> Void) {
        self.tree = tree
        self.completion = completion
        state = Mutex(State(results: Array(repeating: nil, count: tree.leaves.count), outstanding: tree.leaves.count))
    }

    /// Checks every leaf without interaction. `allowUndetermined` lets interactive leaves answer
    /// "undetermined" (their dependency may run later).
    func evaluateAll(for procedure: Procedure, allowUndetermined: Bool) {
        if tree.leaves.isEmpty {
            completion([])
            return
        }
        for (index, leaf) in tree.leaves.enumerated() {
            let mayStay = allowUndetermined && leaf.isInteractive
            leaf.condition.evaluate(for: procedure, context: ConditionContext(mayInteractLater: mayStay)) {
                [self] result in
                record(ConditionTree.normalize(result, mayStayUndetermined: mayStay), at: index)
            }
        }
    }

    private func record(_ result: ConditionResult, at index: Int) {
        let complete = state.withLock { state -> [ConditionResult?]? in
            guard state.results[index] == nil else { return nil }
            state.results[index] = result
            state.outstanding -= 1
            return state.outstanding == 0 ? state.results : nil
        }
        if let complete { completion(complete) }
    }
}

/// One run of a procedure's conditions: every leaf is checked without interaction first; then,
/// while the verdict is still open, produced dependencies run one at a time, each followed by a
/// final check of the condition that produced it.
final class ConditionEvaluation: Sendable {
    private struct State {
        var results: [ConditionResult?] = []
        var asked: [Bool] = []
        var isCancelled = false
        var currentDependency: Procedure?
    }

    private let procedure: Procedure
    private let tree: ConditionTree
    private let state = Mutex(State())

    init(procedure: Procedure, conditions: [any ProcedureCondition]) {
        self.procedure = procedure
        tree = ConditionTree(conditions: conditions)
    }

    func start() {
        let collector = LeafResultCollector(tree: tree) { [self] results in
            let proceed = state.withLock { state -> Bool in
                guard !state.isCancelled else { return false }
                state.results = results
                state.asked = Array(repeating: false, count: results.count)
                return true
            }
            if proceed { decide() }
        }
        collector.evaluateAll(for: procedure, allowUndetermined: true)
    }

    /// Stops the evaluation and cancels the dependency it is waiting for, if any.
    func cancel() {
        let dependency = state.withLock { state -> Procedure? in
            state.isCancelled = true
            defer { state.currentDependency = nil }
            return state.currentDependency
        }
        dependency?.cancel()
    }

    private func decide() {
        let (results, next) = state.withLock { state -> ([ConditionResult?], Int?) in
            guard tree.verdict(of: tree.root, results: state.results) == .undetermined else {
                return (state.results, nil)
            }
            let next = tree.nextLeafToAsk(results: state.results, asked: state.asked)
            if let next { state.asked[next] = true }
            return (state.results, next)
        }
        if let next {
            ask(next)
            return
        }
        var finalResults = results
        // An open verdict with nothing left to ask cannot pass: fail closed.
        if tree.verdict(of: tree.root, results: finalResults) == .undetermined {
            for index in finalResults.indices where finalResults[index]?.verdict == .undetermined {
                finalResults[index] = ConditionTree.normalize(finalResults[index]!, mayStayUndetermined: false)
            }
        }
        let passed = tree.verdict(of: tree.root, results: finalResults) == .satisfied
        procedure.conditionsDidFinishEvaluating(tree.explain(results: finalResults), passed: passed)
    }

    /// Runs the dependency produced by leaf `index`, then checks that leaf once more.
    private func ask(_ index: Int) {
        let condition = tree.leaves[index].condition
        guard let dependency = condition.makeDependency(for: procedure) else {
            checkAgain(index)
            return
        }
        let (queue, observers) = procedure.storage.withLock { ($0.queue, $0.observers) }
        dependency.storage.withLock { $0.isProducedDependency = true }
        let waiting = state.withLock { state -> Bool in
            guard !state.isCancelled, queue != nil else { return false }
            state.currentDependency = dependency
            return true
        }
        guard waiting, let queue else { return }
        for observer in observers { observer.procedure(procedure, didProduce: dependency) }
        dependency.addObserver(
            BlockObserver(didFinish: { [self] _, _ in
                let proceed = state.withLock { state -> Bool in
                    state.currentDependency = nil
                    return !state.isCancelled
                }
                if proceed { checkAgain(index) }
            }))
        queue.addProcedure(dependency)
    }

    private func checkAgain(_ index: Int) {
        let condition = tree.leaves[index].condition
        condition.evaluate(for: procedure, context: ConditionContext(mayInteractLater: false)) { [self] result in
            let proceed = state.withLock { state -> Bool in
                guard !state.isCancelled else { return false }
                state.results[index] = ConditionTree.normalize(result, mayStayUndetermined: false)
                return true
            }
            if proceed { decide() }
        }
    }
}
