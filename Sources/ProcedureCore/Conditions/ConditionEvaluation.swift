import Locking

/// One run of a set of conditions: every leaf is checked without interaction first; then,
/// while the verdict is still open, produced dependencies run one at a time, each followed by
/// a final check of the condition that produced it. Undecided leaves fail closed.
final class ConditionEvaluation: Sendable {
    typealias Completion = @Sendable (_ record: ConditionRecord, _ passed: Bool) -> Void

    private struct State {
        var results: [ConditionResult?]
        var outstanding: Int
        var asked: [Bool] = []
        var isCancelled = false
        var isDecided = false
        var currentDependency: Procedure?
        /// What leaves asked to run if the evaluation is cancelled before it decides.
        var cancellationHandlers: [@Sendable () -> Void] = []
    }

    private let procedure: Procedure
    private let tree: ConditionTree
    private let runsDependencies: Bool
    private let completion: Completion
    private let state: Lock<State>

    init(
        procedure: Procedure, tree: ConditionTree, runsDependencies: Bool,
        checked: ImmediateCheck? = nil, completion: @escaping Completion
    ) {
        self.procedure = procedure
        self.tree = tree
        self.runsDependencies = runsDependencies
        self.completion = completion
        let results = checked?.results ?? Array(repeating: nil, count: tree.leaves.count)
        firstUnchecked = checked?.firstUnchecked ?? 0
        state = Lock(State(results: results, outstanding: tree.leaves.count - firstUnchecked))
    }

    private let firstUnchecked: Int

    /// The leaves that answer at once, checked in order on the calling thread, up to the first
    /// that needs a completion handler.
    struct ImmediateCheck {
        var results: [ConditionResult?]
        var firstUnchecked: Int

        init(results: [ConditionResult?], firstUnchecked: Int) {
            self.results = results
            self.firstUnchecked = firstUnchecked
        }

        init(tree: ConditionTree, procedure: Procedure) {
            let count = tree.leaves.count
            var results: [ConditionResult?] = []
            results.reserveCapacity(count)
            // Through the buffer, so each leaf is borrowed rather than copied: conditions are
            // often shared by many procedures, and every copy is a contended reference count.
            tree.leaves.withUnsafeBufferPointer { leaves in
                for index in 0..<count {
                    guard
                        let result = ConditionEvaluation.immediateAnswer(
                            of: leaves[index], mayStayOpen: tree.isInteractive(index), for: procedure)
                    else { break }
                    results.append(result)
                }
            }
            firstUnchecked = results.count
            while results.count < count { results.append(nil) }
            self.results = results
        }

        /// The verdict, when every leaf answered and nothing is left to ask.
        func verdict(in tree: ConditionTree) -> Bool? {
            guard firstUnchecked == results.count else { return nil }
            switch tree.verdict(results: results) {
            case .satisfied: return true
            case .failed, .undecided: return false
            case .needsInteraction: return nil
            }
        }
    }

    /// Phase one for the leaves not checked yet, without interaction; then phase two.
    func start() {
        guard firstUnchecked < tree.leaves.count else {
            decide()
            return
        }
        for index in firstUnchecked..<tree.leaves.count {
            let mayStay = tree.isInteractive(index)
            let leaf = tree.leaves[index]
            let context = ConditionContext(allowsInteraction: mayStay, evaluation: self)
            if let result = Self.deferredResult(leaf, mayStay)
                ?? leaf.evaluateImmediately(for: procedure, context: context)
            {
                record(result, at: index, mayStayOpen: mayStay)
            } else {
                leaf.evaluate(for: procedure, context: context) { [self] result in
                    record(result, at: index, mayStayOpen: mayStay)
                }
            }
        }
    }

    /// A leaf's first-phase answer, normalized, or nil when it needs a completion handler.
    static func immediateAnswer(
        of leaf: any ProcedureCondition, mayStayOpen: Bool, for procedure: Procedure
    ) -> ConditionResult? {
        let context = ConditionContext(allowsInteraction: mayStayOpen)
        guard
            let result = deferredResult(leaf, mayStayOpen)
                ?? leaf.evaluateImmediately(for: procedure, context: context)
        else { return nil }
        return ConditionTree.normalize(result, mayStayOpen: mayStayOpen)
    }

    /// The first phase's answer for a condition evaluated only after its dependency, without asking it.
    static func deferredResult(_ leaf: any ProcedureCondition, _ mayStayOpen: Bool) -> ConditionResult? {
        guard mayStayOpen, !leaf.evaluatesBeforeDependency else { return nil }
        return .needsInteraction("checked once its dependency has run")
    }

    private func record(_ result: ConditionResult, at index: Int, mayStayOpen: Bool) {
        let complete = state.withLock { state -> Bool in
            guard !state.isCancelled, state.results[index] == nil else { return false }
            state.results[index] = ConditionTree.normalize(result, mayStayOpen: mayStayOpen)
            state.outstanding -= 1
            return state.outstanding == 0
        }
        if complete { decide() }
    }

    /// Stops the evaluation, cancels the dependency it waits for, if any, and tells the leaves
    /// still working (``ConditionContext/whenAbandoned(_:)``).
    func cancel() {
        let (dependency, handlers) = state.withLock { state -> (Procedure?, [@Sendable () -> Void]) in
            guard !state.isCancelled else { return (nil, []) }
            state.isCancelled = true
            defer {
                state.currentDependency = nil
                state.cancellationHandlers = []
            }
            return (state.currentDependency, state.isDecided ? [] : state.cancellationHandlers)
        }
        dependency?.cancel()
        for handler in handlers { handler() }
    }

    /// Runs `handler` when this evaluation is cancelled before it decides (at once if it was).
    func whenCancelled(_ handler: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state -> Bool in
            if state.isDecided { return false }
            if state.isCancelled { return true }
            state.cancellationHandlers.append(handler)
            return false
        }
        if runNow { handler() }
    }

    private func decide() {
        enum Step {
            case ask(Int)
            case done([ConditionResult?])
        }
        let step = state.withLock { state -> Step? in
            guard !state.isCancelled, !state.isDecided else { return nil }
            if runsDependencies, tree.verdict(results: state.results) == .needsInteraction {
                if state.asked.isEmpty { state.asked = Array(repeating: false, count: state.results.count) }
                if let next = tree.nextLeafToAsk(results: state.results, asked: state.asked) {
                    state.asked[next] = true
                    return .ask(next)
                }
            }
            state.isDecided = true
            state.cancellationHandlers = []
            return .done(state.results)
        }
        switch step {
        case nil:
            return
        case .ask(let index):
            ask(index)
        case .done(var results):
            // A verdict still open with nothing left to ask cannot pass: fail closed.
            if runsDependencies, tree.verdict(results: results) == .needsInteraction {
                for index in results.indices {
                    if let result = results[index], result.verdict == .needsInteraction {
                        results[index] = ConditionTree.normalize(result, mayStayOpen: false)
                    }
                }
            }
            let passed = tree.verdict(results: results) == .satisfied
            completion(ConditionRecord(tree: tree, results: results), passed)
        }
    }

    /// Phase two, for one leaf: runs its dependency, then checks the leaf once more.
    private func ask(_ index: Int) {
        let firstAnswer = state.withLock { $0.results[index] }
        guard let dependency = tree.leaves[index].makeDependency(for: procedure, after: firstAnswer) else {
            checkAgain(index, after: nil)
            return
        }
        let (queue, observers) = procedure.storage.withLock { ($0.queue, $0.observers) }
        dependency.storage.withLock { $0.markProducedDependency() }
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
                if proceed { checkAgain(index, after: dependency) }
            }))
        queue.addProcedure(dependency)
    }

    /// The final check of one leaf, handed the dependency it produced (finished) when it did.
    private func checkAgain(_ index: Int, after dependency: Procedure?) {
        tree.leaves[index].evaluate(
            for: procedure,
            context: ConditionContext(allowsInteraction: false, evaluation: self, producedDependency: dependency)
        ) {
            [self] result in
            let proceed = state.withLock { state -> Bool in
                guard !state.isCancelled else { return false }
                state.results[index] = ConditionTree.normalize(result, mayStayOpen: false)
                return true
            }
            if proceed { decide() }
        }
    }
}
