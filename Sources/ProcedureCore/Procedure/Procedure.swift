import Locking

/// A unit of work with dependencies, conditions, observers and cancellation.
///
/// Subclass and override ``execute()``, then call ``finish(with:)`` when the work is done,
/// from any thread and at any later time. Or use ``BlockProcedure`` for a synchronous closure
/// and ``AsyncProcedure`` for an `async throws` one.
///
/// Only a ``ProcedureQueue`` runs a procedure: it waits for dependencies, evaluates conditions,
/// takes exclusivity locks and then calls ``execute()``. Calling ``execute()`` yourself does not
/// run it: ``finish(with:)`` is ignored unless the queue started the procedure.
///
/// Configure a procedure (dependencies, conditions, observers, exclusivity) before adding it to
/// a queue. A dependency, condition or exclusivity category added after that is misuse: the
/// procedure is cancelled if it has not started (so it never runs without what was asked for)
/// and the queue's logger gets a warning.
///
/// ```swift
/// final class Announce: Procedure, @unchecked Sendable {
///     // Sendable by hand: `text` never changes.
///     let text: String
///     init(_ text: String) {
///         self.text = text
///         super.init(name: "announce")
///     }
///     override func execute() {
///         print(text)
///         finish()
///     }
/// }
/// queue.addProcedure(Announce("backup starting"))
/// ```
// Sendable by hand: its state is in `storage` (a lock) or, for the queue links, guarded by the
// owning queue's lock; subclasses add `let`s or state behind a lock of their own (Docs/OperationCore.md).
open class Procedure: @unchecked Sendable {
    /// The lifecycle state machine and what the procedure holds (ProcedureLifecycle.swift).
    let storage = Lock(ProcedureLifecycle())
    /// The conditions, outside `storage` so that a worker can read them without its lock.
    let conditionReference = ConditionListReference()

    // The owning queue's list of unfinished procedures, guarded by that queue's lock.
    var queueNext: Procedure?
    unowned(unsafe) var queuePrevious: Procedure?

    /// Creates a procedure.
    /// - Parameter name: A name for messages and explanations; defaults to the type name.
    public init(name: String? = nil) {
        if let name { storage.withLock { $0.name = name } }
    }

    // MARK: Work

    /// The work body. The queue calls it once, on one of its threads.
    ///
    /// Override it and call ``Procedure/finish(with:)`` when done, possibly later and from another
    /// thread. The default implementation finishes at once. Check ``Procedure/isCancelled`` in long work.
    open func execute() {
        finish()
    }

    /// Called once, outside any lock, right after the procedure is cancelled.
    ///
    /// Override it to stop work in progress (close a socket, cancel a timer). The default does nothing.
    open func didCancel(with error: (any Error)?) {}

    /// Marks the work as done. Only the work body's finish counts: a call before the procedure
    /// executes is ignored with a warning; a second call is ignored quietly, since a body racing its
    /// own cancellation or timeout may well finish twice.
    ///
    /// - Parameter error: The failure, if any. The first error recorded wins.
    public final func finish(with error: (any Error)? = nil) {
        switch storage.withLock({ $0.finish(error: error) }) {
        case .finished(let queue, let dependents, let finalError):
            // Most procedures have nobody to tell but their dependents and queue.
            releaseWorkBody(executed: true)
            ProcedureLog.debug(self, on: queue, finalError.map { "finished with error: \($0)" } ?? "finished")
            for dependent in dependents { dependent.dependencyDidFinish() }
            queue?.procedureDidFinish(self, wasExecuting: true)
        case .finishing(let transition):
            complete(transition)
        case .refused(let phase) where phase < .executing:
            ProcedureLog.warning(
                self, on: storage.withLock { $0.queue }, "finish called while \(phase), before executing: ignored")
        case .refused:
            break
        }
    }

    /// Cancels the procedure. Cooperative when it is executing; otherwise it finishes promptly
    /// without executing. A second call, or a call after it finished, is ignored.
    ///
    /// - Parameter error: An optional reason, recorded as ``error`` if none was recorded yet.
    public final func cancel(with error: (any Error)? = nil) {
        let action = storage.withLock { state in
            let action = state.cancel(error: error)
            if case .cancelled = action { conditionReference.markCancelled() }
            return action
        }
        guard case .cancelled(let cancellation) = action else { return }
        ProcedureLog.debug(
            self, on: cancellation.queue, "cancelled while \(cancellation.phase)" + (error.map { ": \($0)" } ?? ""))
        for observer in cancellation.observers { observer.procedureDidCancel(self, error: error) }
        didCancel(with: error)
        if cancellation.finishesNow { finishWithoutExecuting() }
    }

    // MARK: Reading state

    /// The name used in messages, explanations and cycle reports.
    public var name: String {
        get { storage.withLock { $0.name } ?? String(describing: type(of: self)) }
        set { storage.withLock { $0.name = newValue } }
    }

    /// The current state.
    public var state: ProcedureState { storage.withLock { $0.state } }

    /// Whether ``cancel(with:)`` was called (directly, by a failed condition, or by a timeout).
    public var isCancelled: Bool { storage.withLock { $0.isCancelled } }

    /// Whether the work body is running.
    public var isExecuting: Bool { state == .executing }

    /// Whether the procedure reached ``ProcedureState/finished``.
    public var isFinished: Bool { state == .finished }

    /// The first error recorded, or `nil`. A procedure with an error failed, whether or not it was cancelled.
    public var error: (any Error)? { storage.withLock { $0.error } }

    /// The explanation of the last condition evaluation, or `nil` if it had no conditions or
    /// has not evaluated them yet.
    public var conditionExplanation: ConditionExplanation? {
        // Answers are written before they are published under the lock, and never after.
        let (list, treeResults, flags) = storage.withLock { state in
            (state.flags[.hasConditionResults] ? conditionReference.list : nil, state.conditionTreeResults, state.flags)
        }
        guard let list else { return nil }
        // The tree is rebuilt rather than kept: conditions cannot change once enqueued.
        let tree = list.tree(containsCompositions: flags[.hasComposedConditions])
        let results = treeResults ?? list.results(common: flags[.hasCommonConditionAnswer])
        return ConditionRecord(tree: tree, results: results).explanation
    }

    /// Waits until the procedure has finished. Returns at once if it already has.
    public func waitUntilFinished() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            if case .resumeNow = storage.withLock({ $0.addWaiter(continuation) }) { continuation.resume() }
        }
    }

    // MARK: Configuration

    /// Makes this procedure wait for each of `dependencies`, as ``addDependency(_:)`` does.
    public final func addDependencies(_ dependencies: some Sequence<Procedure>) {
        for dependency in dependencies { addDependency(dependency) }
    }

    /// The procedure's own dependencies. Produced dependencies are not listed.
    /// Empty once the procedure has finished (it lets go of them).
    public var dependencies: [Procedure] { storage.withLock { $0.dependencies.array } }

    /// Makes this procedure wait until `dependency` has finished, on any queue.
    /// Adding one once this procedure is on a queue is misuse (see ``Procedure``): it is cancelled
    /// if it has not started.
    ///
    /// Waiting is all it does: this procedure runs after a dependency that failed or was
    /// cancelled too, as with Foundation's and ProcedureKit's operations. Add
    /// ``NoFailedDependencies`` and ``NoCancelledDependencies`` to run only after successes.
    public final func addDependency(_ dependency: Procedure) {
        switch storage.withLock({ $0.addDependency(dependency) }) {
        case .refused: return configuredAfterEnqueue("a dependency on '\(dependency.name)'")
        case .duplicate: return
        case .added: break
        }
        if case .alreadyFinished = dependency.storage.withLock({ $0.addDependent(self) }) { dependencyDidFinish() }
    }

    /// Removes a dependency added with ``addDependency(_:)``. Ignored once this procedure is on a queue.
    public final func removeDependency(_ dependency: Procedure) {
        guard case .removed = storage.withLock({ $0.removeDependency(dependency) }) else { return }
        guard case .removed = dependency.storage.withLock({ $0.removeDependent(self) }) else { return }
        _ = storage.withLock { $0.stopWaiting() }
    }

    /// Adds a condition that must be satisfied before the procedure executes.
    /// Adding one once this procedure is on a queue is misuse (see ``Procedure``): it is cancelled
    /// if it has not started, so it never runs unguarded.
    @inlinable
    public final func addCondition<Condition: ProcedureCondition>(_ condition: Condition) {
        // Inlinable, so that what the condition is (`ConditionKey`) is read in code specialized
        // for its type where it is added; the rest takes it boxed, and boxes it only to store it.
        addCondition(ConditionKey.of(condition)) { condition }
    }

    @usableFromInline
    final func addCondition(_ key: ConditionKey, _ condition: () -> any ProcedureCondition) {
        let action = storage.withLock { state in
            let action = state.addCondition(isComposition: ConditionTree.isComposition(key.type))
            if case .accepted = action { conditionReference.append(key, condition) }
            return action
        }
        if case .refused = action { configuredAfterEnqueue("the condition '\(condition().name)'") }
    }

    /// The conditions added so far (kept after finishing, for ``conditionExplanation``).
    public var conditions: [any ProcedureCondition] {
        storage.withLock { _ in conditionReference.list?.conditions ?? [] }
    }

    /// Makes this procedure mutually exclusive with every other procedure, on any queue, that
    /// names the same category. Adding one once this procedure is on a queue is misuse (see
    /// ``Procedure``): it is cancelled if it has not started.
    public final func addExclusivityCategory(_ category: String) {
        if case .refused = storage.withLock({ $0.addExclusivityCategory(category) }) {
            configuredAfterEnqueue("the exclusivity category '\(category)'")
        }
    }

    /// Makes this procedure mutually exclusive with every other procedure that names the same
    /// type, as Apple's `MutuallyExclusive<Alert>` does: `addExclusivityCategory(Alert.self)`.
    /// The category is ``exclusivityCategory(for:)``, so a type in another module never collides.
    public final func addExclusivityCategory<Category>(_ category: Category.Type) {
        addExclusivityCategory(Self.exclusivityCategory(for: category))
    }

    /// The category string a type stands for: `type:` and its fully qualified name.
    public static func exclusivityCategory<Category>(for category: Category.Type) -> String {
        "type:" + String(reflecting: category)
    }

    /// How soon this procedure runs among its queue's ready procedures (``ProcedurePriority``).
    /// Set it before adding the procedure to a queue; a change after that is ignored with a warning.
    public var priority: ProcedurePriority {
        get { conditionReference.priority }
        set {
            let action = storage.withLock { state in
                let action = state.configure()
                if case .accepted = action { conditionReference.setPriority(newValue) }
                return action
            }
            if case .refused = action {
                let queue = storage.withLock { $0.queue }
                ProcedureLog.warning(self, on: queue, "priority \(newValue) was set after it was enqueued: ignored")
            }
        }
    }

    /// The exclusivity categories this procedure asked for.
    public var exclusivityCategories: [String] { storage.withLock { $0.exclusivityCategories } }

    /// Adds an observer. Safe at any time: one added after the procedure finished hears
    /// did-finish at once, on the calling thread.
    public final func addObserver(_ observer: any ProcedureObserver) {
        if case .tellFinished(let error) = storage.withLock({ $0.addObserver(observer) }) {
            observer.procedureDidFinish(self, error: error)
        }
    }

    // MARK: Internal hooks

    /// Releases the work body once finished, so closures and what they capture do not outlive
    /// the work. `executed` says whether the body ran (a body that takes itself when it runs has
    /// nothing left to release then).
    func releaseWorkBody(executed: Bool) {}

    /// Called by the queue on a worker thread. Returns false if the procedure was no longer ready.
    final func run(on queue: ProcedureQueue) -> Bool {
        let observers: [any ProcedureObserver]
        if let list = conditionReference.listForWorker() {
            // Plain conditions to evaluate first (see `didEnqueue`): no lock before them, the
            // one after them decides. The list is not retained: the procedure holds it, and it
            // never changes once enqueued.
            let present = list._withUnsafeGuaranteedRef { evaluateOnWorker($0, queue: queue) }
            guard let present else { return false }
            observers = present
        } else {
            guard case .execute(let present) = storage.withLock({ $0.startExecuting() }) else { return false }
            observers = present
        }
        ProcedureLog.debug(self, on: queue, "executing")
        for observer in observers { observer.procedureWillExecute(self) }
        execute()
        return true
    }
}

// MARK: - Carrying out the lifecycle

// Each method sends one event to the lifecycle machine under the lock, then does what its action
// says outside the lock.
extension Procedure {
    /// Misuse: configuration after enqueueing. Fails closed while the procedure has not started.
    private func configuredAfterEnqueue(_ what: String) {
        let (phase, queue) = storage.withLock { ($0.state, $0.queue) }
        guard phase < .executing else {
            ProcedureLog.warning(self, on: queue, "\(what) was added after it started (\(phase)): ignored")
            return
        }
        ProcedureLog.warning(
            self, on: queue, "\(what) was added after it was enqueued: cancelled, so it never runs without it")
        cancel(with: ProcedureError.misuse(name, "\(what) was added after it was enqueued"))
    }

    /// Claims the procedure for a queue, unless it is already on one or past initialized.
    func claim(by queue: ProcedureQueue) -> ProcedureLifecycle.Claim {
        storage.withLock { $0.claim(by: queue) }
    }

    /// Called by the queue once the procedure is linked into its list. Returns true when the
    /// procedure needs nothing before running (no dependencies, conditions, inputs or
    /// exclusivity) and is now ready: the queue then puts it on its ready list itself.
    func didEnqueue(on queue: ProcedureQueue) -> Bool {
        let mayEvaluate = !queue.isSuspendedNow
        let action = storage.withLock { state in
            let action = state.enqueued(hasConditions: !conditionReference.isEmpty, mayEvaluateOnWorker: mayEvaluate)
            if case .readyToEvaluateOnWorker = action { conditionReference.setEvaluatesOnWorker(true) }
            return action
        }
        switch action {
        case .ready, .readyToEvaluateOnWorker:
            return true
        case .finishWithoutExecuting:
            finishWithoutExecuting()
        case .waitForDependencies:
            DependencyCycleDetector.check(self)
        case .proceed:
            dependenciesDidFinish()
            if case .pushWithBatch = storage.withLock({ $0.endEnqueueing() }) { return true }
        }
        return false
    }

    func dependencyDidFinish() {
        if case .beginEvaluation = storage.withLock({ $0.dependencyFinished() }) { dependenciesDidFinish() }
    }

    private func dependenciesDidFinish() {
        guard let queue = storage.withLock({ $0.queue }) else { return }
        if queue.parkIfSuspended(self) { return }
        beginEvaluation()
    }

    /// A worker's evaluation of plain conditions (see `didEnqueue`). Returns the observers to
    /// tell when they passed at once and the procedure is now executing; nil otherwise (the
    /// evaluation carries on elsewhere, or the procedure was cancelled).
    private func evaluateOnWorker(_ list: ConditionList, queue: ProcedureQueue) -> [any ProcedureObserver]? {
        let answers: ProcedureLifecycle.PassedAnswers
        switch list.checkImmediately(for: self) {
        case .undecided(let checked):
            evaluate(list.tree(containsCompositions: false), checked)
            return nil
        case .passed: answers = .inList
        case .passedWithCommonAnswer: answers = .common
        case .passedWithAnswers(let kept): answers = .own(kept)
        }
        let action = storage.withLock { state in
            let action = state.conditionsPassedOnWorker(answers: answers)
            if case .execute = action { conditionReference.setEvaluatesOnWorker(false) }
            return action
        }
        guard case .execute(let observers) = action else { return nil }
        ProcedureLog.debug(self, on: queue, "conditions satisfied")
        return observers
    }

    /// Moves from pending to evaluating conditions. Also called by a resumed queue for parked procedures.
    func beginEvaluation() {
        let (start, list) = storage.withLock { state in (state.beginEvaluation(), conditionReference.list) }
        guard case .evaluate(let inputs, let hasComposedConditions) = start else { return }
        for input in inputs {
            if let error = input() {
                cancel(with: error)
                return
            }
        }
        guard let list else {
            conditionsDidPass()
            return
        }
        let tree = list.tree(containsCompositions: hasComposedConditions)
        evaluate(tree, ConditionEvaluation.ImmediateCheck(tree: tree, procedure: self))
    }

    /// Carries on from the first check of every leaf: decides, or starts an evaluation that
    /// waits for late answers and runs produced dependencies.
    private func evaluate(_ tree: ConditionTree, _ checked: ConditionEvaluation.ImmediateCheck) {
        if let passed = checked.verdict(in: tree) {
            conditionsDidFinishEvaluating(results: checked.results, passed: passed)
            return
        }
        // Something answers later, or could pass by asking: an evaluation object carries on.
        let evaluation = ConditionEvaluation(procedure: self, tree: tree, runsDependencies: true, checked: checked) {
            [self] record, passed in
            conditionsDidFinishEvaluating(results: record.results, passed: passed)
        }
        if case .start = storage.withLock({ $0.evaluationStarted(evaluation) }) { evaluation.start() }
    }

    private func conditionsDidFinishEvaluating(results: [ConditionResult?], passed: Bool) {
        guard !passed else {
            conditionsDidPass(results: results)
            return
        }
        let action = storage.withLock { $0.conditionsFailed(results: results, in: conditionReference.list) }
        // The explanation is built from what was just stored, the same way the public property does.
        if case .cancel = action, let explanation = conditionExplanation {
            let error = ProcedureError.conditionsNotSatisfied(explanation)
            ProcedureLog.debug(self, on: storage.withLock { $0.queue }, "\(error)")
            cancel(with: error)
        }
    }

    /// Moves on once conditions passed (`results` is nil when there were none).
    private func conditionsDidPass(results: [ConditionResult?]? = nil) {
        var owner: ProcedureQueue?
        let action = storage.withLock { state -> ProcedureLifecycle.PassAction in
            let action = state.conditionsPassed(results: results, in: conditionReference.list)
            if case .stale = action { return action }
            owner = state.queue
            // Ready again after an evaluation that asked: the worker that takes it runs it.
            conditionReference.setEvaluatesOnWorker(false)
            return action
        }
        if results != nil, let owner { ProcedureLog.debug(self, on: owner, "conditions satisfied") }
        carryOut(action)
    }

    private func carryOut(_ action: ProcedureLifecycle.PassAction, grantedLease: ExclusivityLease? = nil) {
        switch action {
        case .stale:
            grantedLease?.release()
        case .deferred:
            break
        case .ready(let queue):
            queue.enqueueReady(self)
        case .acquireExclusivity(let categories, let queue):
            let lease = ExclusivityLease(categories: categories, scope: queue.exclusivityScope) { [self] lease in
                carryOut(storage.withLock { $0.exclusivityGranted(lease) }, grantedLease: lease)
            }
            if case .acquire = storage.withLock({ $0.leaseCreated(lease) }) { lease.acquire() }
        }
    }

    /// Finishes a procedure that has not started executing (cancelled, or on a dependency cycle).
    func finishWithoutExecuting(error: (any Error)? = nil) {
        guard case .finishing(let transition) = storage.withLock({ $0.finishWithoutExecuting(error: error) }) else {
            return
        }
        transition.evaluation?.cancel()
        complete(transition)
    }

    /// The common tail of every way to finish.
    private func complete(_ transition: ProcedureLifecycle.FinishTransition) {
        transition.lease?.release()
        let parts: ProcedureLifecycle.FinishedParts
        if let finished = transition.finished {
            parts = finished
        } else {
            for observer in transition.observers { observer.procedureWillFinish(self, error: transition.error) }
            parts = storage.withLock { $0.takeForFinished() }
        }
        releaseWorkBody(executed: transition.wasExecuting)
        ProcedureLog.debug(self, on: parts.queue, transition.error.map { "finished with error: \($0)" } ?? "finished")
        for observer in parts.observers { observer.procedureDidFinish(self, error: transition.error) }
        for dependent in parts.dependents { dependent.dependencyDidFinish() }
        for waiter in parts.waiters { waiter.resume() }
        parts.queue?.procedureDidFinish(self, wasExecuting: transition.wasExecuting)
    }
}

extension Procedure: CustomStringConvertible {
    public var description: String { "\(name) (\(state))" }
}
