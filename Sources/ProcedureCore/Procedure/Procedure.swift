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
// Sendable by hand: its state is in `storage` (a lock) or, for the queue links, guarded by the
// owning queue's lock; subclasses add `let`s or state behind a lock of their own (Docs/OperationCore.md).
open class Procedure: @unchecked Sendable {
    let storage = Lock(Storage())
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
        // Most procedures have nobody to tell but their dependents and queue: they finish in one
        // step that moves those two out of the lock, without a transition record.
        var queue: ProcedureQueue?
        var dependents = ProcedureList()
        var finalError: (any Error)?
        let step = storage.withLock { state -> FinishStep in
            guard state.state == .executing else { return .refused(state.state) }
            guard state.observers.isEmpty, state.extras?.holdsFinishWork != true else { return .general }
            if state.error == nil, let error { state.error = error }
            finalError = state.error
            state.state = .finished
            swap(&queue, &state.queue)
            swap(&dependents, &state.dependents)
            state.dependencies = ProcedureList()
            return .finished
        }
        switch step {
        case .finished:
            releaseWorkBody(executed: true)
            ProcedureLog.debug(self, on: queue, finalError.map { "finished with error: \($0)" } ?? "finished")
            for dependent in dependents { dependent.dependencyDidFinish() }
            queue?.procedureDidFinish(self, wasExecuting: true)
        case .general:
            finishGenerally(with: error)
        case .refused(let phase) where phase < .executing:
            ProcedureLog.warning(
                self, on: storage.withLock { $0.queue }, "finish called while \(phase), before executing: ignored")
        case .refused:
            break
        }
    }

    private enum FinishStep {
        case finished, general
        case refused(ProcedureState)
    }

    /// Finishing with observers, waiters, an evaluation or a lease to deal with.
    private func finishGenerally(with error: (any Error)?) {
        let transition = storage.withLock { state -> FinishTransition? in
            guard state.state == .executing else { return nil }
            return state.beginFinishing(error: error)
        }
        if let transition { complete(transition) }
    }

    /// Cancels the procedure. Cooperative when it is executing; otherwise it finishes promptly
    /// without executing. A second call, or a call after it finished, is ignored.
    ///
    /// - Parameter error: An optional reason, recorded as ``error`` if none was recorded yet.
    public final func cancel(with error: (any Error)? = nil) {
        let snapshot = storage.withLock { state -> (ProcedureState, [any ProcedureObserver], ProcedureQueue?)? in
            guard state.state < .finishing, !state.isCancelled else { return nil }
            state.isCancelled = true
            conditionReference.markCancelled()
            if state.error == nil, let error { state.error = error }
            return (state.state, state.observers, state.queue)
        }
        guard let (phase, observers, queue) = snapshot else { return }
        ProcedureLog.debug(self, on: queue, "cancelled while \(phase)" + (error.map { ": \($0)" } ?? ""))
        for observer in observers { observer.procedureDidCancel(self, error: error) }
        didCancel(with: error)
        if phase == .executing || phase == .initialized { return }
        finishWithoutExecuting()
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
        let (list, treeResults) = storage.withLock { state in
            (state.flags[.hasConditionResults] ? conditionReference.list : nil, state.extras?.conditionTreeResults)
        }
        guard let list else { return nil }
        // The tree is rebuilt rather than kept: conditions cannot change once enqueued.
        let tree = list.tree(containsCompositions: treeResults != nil)
        return ConditionRecord(tree: tree, results: treeResults ?? list.results).explanation
    }

    /// Waits until the procedure has finished. Returns at once if it already has.
    public func waitUntilFinished() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let finished = storage.withLock { state -> Bool in
                if state.state == .finished { return true }
                state.extra.waiters.append(continuation)
                return false
            }
            if finished { continuation.resume() }
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
        let added = storage.withLock { state -> Bool? in
            guard state.state == .initialized else { return nil }
            guard !state.dependsOn(dependency) else { return false }
            state.addDependency(dependency)
            state.pendingDependencies += 1
            return true
        }
        guard let added else { return configuredAfterEnqueue("a dependency on '\(dependency.name)'") }
        guard added else { return }
        let alreadyFinished = dependency.storage.withLock { state -> Bool in
            if state.state == .finished { return true }
            state.dependents.append(self)
            return false
        }
        if alreadyFinished { dependencyDidFinish() }
    }

    /// Removes a dependency added with ``addDependency(_:)``. Ignored once this procedure is on a queue.
    public final func removeDependency(_ dependency: Procedure) {
        let removed = storage.withLock { state -> Bool in
            guard state.state == .initialized, state.dependencies.remove(dependency) else { return false }
            state.extras?.dependencyIdentities?.remove(ObjectIdentifier(dependency))
            return true
        }
        guard removed else { return }
        let wasWaiting = dependency.storage.withLock { $0.dependents.remove(self) }
        if wasWaiting { storage.withLock { $0.pendingDependencies -= 1 } }
    }

    /// Adds a condition that must be satisfied before the procedure executes.
    /// Adding one once this procedure is on a queue is misuse (see ``Procedure``): it is cancelled
    /// if it has not started, so it never runs unguarded.
    public final func addCondition<Condition: ProcedureCondition>(_ condition: Condition) {
        // Generic rather than an existential parameter: the caller passes its condition without
        // a copy, and the list copies it once, into its slot.
        let added = storage.withLock { state -> Bool in
            guard state.state == .initialized else { return false }
            conditionReference.append(condition)
            if ConditionTree.isComposition(Condition.self) { state.flags[.hasComposedConditions] = true }
            return true
        }
        if !added { configuredAfterEnqueue("the condition '\(condition.name)'") }
    }

    /// The conditions added so far (kept after finishing, for ``conditionExplanation``).
    public var conditions: [any ProcedureCondition] {
        storage.withLock { _ in conditionReference.list?.conditions ?? [] }
    }

    /// Makes this procedure mutually exclusive with every other procedure, on any queue, that
    /// names the same category. Adding one once this procedure is on a queue is misuse (see
    /// ``Procedure``): it is cancelled if it has not started.
    public final func addExclusivityCategory(_ category: String) {
        let added = storage.withLock { state -> Bool in
            guard state.state == .initialized else { return false }
            if !state.exclusivityCategories.contains(category) { state.extra.exclusivityCategories.append(category) }
            return true
        }
        if !added { configuredAfterEnqueue("the exclusivity category '\(category)'") }
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

    /// The exclusivity categories this procedure asked for.
    public var exclusivityCategories: [String] { storage.withLock { $0.exclusivityCategories } }

    /// Adds an observer. Safe at any time: one added after the procedure finished hears
    /// did-finish at once, on the calling thread.
    public final func addObserver(_ observer: any ProcedureObserver) {
        let finishedError = storage.withLock { state -> (any Error)?? in
            if state.state == .finished { return .some(state.error) }
            state.observers.append(observer)
            return .none
        }
        if case .some(let error) = finishedError { observer.procedureDidFinish(self, error: error) }
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
            let present = storage.withLock { state -> [any ProcedureObserver]? in
                // Cancelled while ready: `cancel` is finishing it, and it must not start.
                guard state.state == .ready, !state.isCancelled else { return nil }
                state.state = .executing
                return state.observers
            }
            guard let present else { return false }
            observers = present
        }
        ProcedureLog.debug(self, on: queue, "executing")
        for observer in observers { observer.procedureWillExecute(self) }
        execute()
        return true
    }
}

// MARK: - Lifecycle

extension Procedure {
    /// What a procedure holds, guarded by its lock.
    struct Storage {
        // The small fields first, so that they share one word.
        var state: ProcedureState = .initialized
        var isCancelled = false
        var flags = Flags()
        var pendingDependencies: Int32 = 0
        var error: (any Error)?
        var dependencies = ProcedureList()
        var dependents = ProcedureList()
        var observers: [any ProcedureObserver] = []
        var queue: ProcedureQueue?
        /// What most procedures never use, out of line so that the common procedure stays small.
        var extras: Extras?

        /// Yes-or-no facts about the procedure, one bit each: `state.flags[.isProducedDependency]`.
        struct Flags: OptionSet {
            let rawValue: UInt8
            /// Made by a condition of another procedure, not added by the user.
            static let isProducedDependency = Flags(rawValue: 1 << 0)
            static let isOnDependencyCycle = Flags(rawValue: 1 << 1)
            /// The answers of the evaluation are kept (in the condition list, or in the extras for
            /// compositions), for its explanation.
            static let hasConditionResults = Flags(rawValue: 1 << 2)
            /// Set by the cycle detector: every procedure reachable from here is on a queue and acyclic.
            static let isSealedAgainstCycles = Flags(rawValue: 1 << 3)
            /// While the queue is adding this procedure, becoming ready is recorded here instead of
            /// pushed, so the queue can push a whole batch under one lock.
            static let defersReadyPush = Flags(rawValue: 1 << 4)
            static let hasDeferredReadyPush = Flags(rawValue: 1 << 5)
            // 1 << 6 is free: the worker's evaluation is flagged in `Procedure.conditionReference`.
            /// Some condition is an AllOf, AnyOf, Negated or Silent (decided once, when added).
            static let hasComposedConditions = Flags(rawValue: 1 << 7)

            subscript(_ flag: Flags) -> Bool {
                get { contains(flag) }
                set { if newValue { insert(flag) } else { remove(flag) } }
            }
        }

        /// A name given by the user; out of line, since many procedures go by their type's name.
        var name: String? {
            get { extras?.name }
            set { if newValue != nil || extras != nil { extra.name = newValue } }
        }

        /// The out-of-line part, created on first write.
        var extra: Extras {
            mutating get {
                if let extras { return extras }
                let created = Extras()
                extras = created
                return created
            }
        }

        var exclusivityCategories: [String] { extras?.exclusivityCategories ?? [] }

        mutating func publishConditionResults(_ results: [ConditionResult?], in list: ConditionList?) {
            if flags[.hasComposedConditions] {
                extra.conditionTreeResults = results
            } else {
                list?.store(results)
            }
            flags[.hasConditionResults] = true
        }

        /// Past this many dependencies, an identity set answers ``dependsOn(_:)``.
        static let scannedDependencyLimit = 32

        func dependsOn(_ procedure: Procedure) -> Bool {
            if let identities = extras?.dependencyIdentities { return identities.contains(ObjectIdentifier(procedure)) }
            return dependencies.contains(procedure)
        }

        mutating func addDependency(_ procedure: Procedure) {
            dependencies.append(procedure)
            if extras?.dependencyIdentities != nil {
                extras?.dependencyIdentities?.insert(ObjectIdentifier(procedure))
            } else if dependencies.count > Self.scannedDependencyLimit {
                extra.dependencyIdentities = Set(dependencies.map(ObjectIdentifier.init))
            }
        }
        var inputs: [@Sendable () -> (any Error)?] { extras?.inputs ?? [] }
        var waiters: [CheckedContinuation<Void, Never>] { extras?.waiters ?? [] }
        var evaluation: ConditionEvaluation? {
            get { extras?.evaluation }
            set { if newValue != nil || extras != nil { extra.evaluation = newValue } }
        }
        var exclusivityLease: ExclusivityLease? {
            get { extras?.exclusivityLease }
            set { if newValue != nil || extras != nil { extra.exclusivityLease = newValue } }
        }

        mutating func beginFinishing(error newError: (any Error)?) -> FinishTransition {
            let wasExecuting = state == .executing
            state = .finishing
            if error == nil, let newError { error = newError }
            var transition = FinishTransition(
                wasExecuting: wasExecuting, observers: observers, error: error,
                evaluation: evaluation, lease: exclusivityLease)
            evaluation = nil
            exclusivityLease = nil
            // With nobody to tell about will-finish, finishing and finished are one step.
            if observers.isEmpty { transition.finished = takeForFinished() }
            return transition
        }

        /// Moves to finished and lets go of everything the procedure held.
        mutating func takeForFinished() -> FinishedParts {
            state = .finished
            let parts = FinishedParts(observers: observers, dependents: dependents, waiters: waiters, queue: queue)
            observers = []
            dependents = ProcedureList()
            queue = nil
            dependencies = ProcedureList()
            if let extras {
                extras.waiters = []
                extras.inputs = []
            }
            return parts
        }
    }

    /// The rarely used part of a procedure's storage, guarded by the procedure's lock.
    final class Extras {
        var name: String?
        var exclusivityCategories: [String] = []
        var inputs: [@Sendable () -> (any Error)?] = []
        var waiters: [CheckedContinuation<Void, Never>] = []
        var evaluation: ConditionEvaluation?
        var exclusivityLease: ExclusivityLease?
        /// For procedures with many dependencies, so the duplicate check stays constant-time.
        var dependencyIdentities: Set<ObjectIdentifier>?
        /// The answers of conditions that include compositions, one per leaf of their tree.
        var conditionTreeResults: [ConditionResult?]?

        /// Whether finishing has more to do than tell dependents and the queue.
        var holdsFinishWork: Bool { !waiters.isEmpty || evaluation != nil || exclusivityLease != nil }
    }

    struct FinishTransition {
        var wasExecuting: Bool
        var observers: [any ProcedureObserver]
        var error: (any Error)?
        var evaluation: ConditionEvaluation?
        var lease: ExclusivityLease?
        var finished: FinishedParts?
    }

    struct FinishedParts {
        var observers: [any ProcedureObserver]
        var dependents: ProcedureList
        var waiters: [CheckedContinuation<Void, Never>]
        var queue: ProcedureQueue?
    }

    enum Claim {
        case claimed
        case onQueue(ProcedureQueue)
        case started(ProcedureState)
    }

    /// Claims the procedure for a queue, unless it is already on one or past initialized.
    func claim(by queue: ProcedureQueue) -> Claim {
        storage.withLock { state in
            if let current = state.queue { return .onQueue(current) }
            guard state.state == .initialized else { return .started(state.state) }
            state.queue = queue
            return .claimed
        }
    }

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

    /// Called by the queue once the procedure is linked into its list. Returns true when the
    /// procedure needs nothing before running (no dependencies, conditions, inputs or
    /// exclusivity) and is now ready: the queue then puts it on its ready list itself.
    func didEnqueue(on queue: ProcedureQueue) -> Bool {
        enum Next { case ready, finish, waitForDependencies, proceed }
        let mayEvaluate = !queue.isSuspendedNow
        let next = storage.withLock { state -> Next in
            state.state = .pending
            if state.isCancelled { return .finish }
            guard state.pendingDependencies == 0 else { return .waitForDependencies }
            guard state.inputs.isEmpty, state.exclusivityCategories.isEmpty else {
                state.flags[.defersReadyPush] = true
                return .proceed
            }
            if conditionReference.isEmpty {
                state.state = .ready
                return .ready
            }
            // Plain conditions and nothing else: a worker evaluates them when it takes the
            // procedure from the ready list, and runs it at once when they pass, so the thread
            // adding procedures does not evaluate every condition itself.
            guard mayEvaluate, !state.flags[.hasComposedConditions] else {
                state.flags[.defersReadyPush] = true
                return .proceed
            }
            state.state = .evaluatingConditions
            conditionReference.setEvaluatesOnWorker(true)
            return .ready
        }
        switch next {
        case .ready:
            return true
        case .finish:
            finishWithoutExecuting()
        case .waitForDependencies:
            DependencyCycleDetector.check(self)
        case .proceed:
            dependenciesDidFinish()
            return storage.withLock { state in
                state.flags[.defersReadyPush] = false
                defer { state.flags[.hasDeferredReadyPush] = false }
                return state.flags[.hasDeferredReadyPush]
            }
        }
        return false
    }

    func dependencyDidFinish() {
        let proceed = storage.withLock { state -> Bool in
            state.pendingDependencies -= 1
            return state.pendingDependencies == 0 && state.state == .pending && !state.isCancelled
        }
        if proceed { dependenciesDidFinish() }
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
        if let checked = list.checkImmediately(for: self) {
            evaluate(list.tree(containsCompositions: false), checked)
            return nil
        }
        let observers = storage.withLock { state -> [any ProcedureObserver]? in
            guard state.state == .evaluatingConditions, !state.isCancelled else { return nil }
            conditionReference.setEvaluatesOnWorker(false)
            state.flags[.hasConditionResults] = true
            state.state = .executing
            return state.observers
        }
        if observers != nil { ProcedureLog.debug(self, on: queue, "conditions satisfied") }
        return observers
    }

    /// Moves from pending to evaluating conditions. Also called by a resumed queue for parked procedures.
    func beginEvaluation() {
        let work = storage.withLock { state -> ([@Sendable () -> (any Error)?], ConditionList?, composed: Bool)? in
            guard state.state == .pending, !state.isCancelled, !state.flags[.isOnDependencyCycle] else { return nil }
            state.state = .evaluatingConditions
            let inputs = state.inputs
            state.extras?.inputs = []
            return (inputs, conditionReference.list, state.flags[.hasComposedConditions])
        }
        guard let (inputs, list, composed) = work else { return }
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
        let tree = list.tree(containsCompositions: composed)
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
        let started = storage.withLock { state -> Bool in
            guard state.state == .evaluatingConditions else { return false }
            state.evaluation = evaluation
            return true
        }
        if started { evaluation.start() }
    }

    private func conditionsDidFinishEvaluating(results: [ConditionResult?], passed: Bool) {
        guard !passed else {
            conditionsDidPass(results: results)
            return
        }
        let current = storage.withLock { state -> Bool in
            guard state.state == .evaluatingConditions else { return false }
            state.publishConditionResults(results, in: conditionReference.list)
            state.evaluation = nil
            return true
        }
        // The explanation is built from what was just stored, the same way the public property does.
        if current, let explanation = conditionExplanation {
            let error = ProcedureError.conditionsNotSatisfied(explanation)
            ProcedureLog.debug(self, on: storage.withLock { $0.queue }, "\(error)")
            cancel(with: error)
        }
    }

    /// Moves on once conditions passed (`results` is nil when there were none).
    private func conditionsDidPass(results: [ConditionResult?]? = nil) {
        enum Next {
            case deferred
            case ready(ProcedureQueue)
            case lock([String], ProcedureQueue)
        }
        var owner: ProcedureQueue?
        let next = storage.withLock { state -> Next? in
            guard state.state == .evaluatingConditions, let queue = state.queue else { return nil }
            owner = queue
            // Ready again after an evaluation that asked: the worker that takes it runs it.
            conditionReference.setEvaluatesOnWorker(false)
            if let results {
                state.publishConditionResults(results, in: conditionReference.list)
                state.evaluation = nil
            }
            guard state.exclusivityCategories.isEmpty else {
                state.state = .waitingForExclusivity
                return .lock(state.exclusivityCategories, queue)
            }
            state.state = .ready
            if state.flags[.defersReadyPush] {
                state.flags[.hasDeferredReadyPush] = true
                return .deferred
            }
            return .ready(queue)
        }
        if results != nil { ProcedureLog.debug(self, on: owner, "conditions satisfied") }
        guard case .lock(let categories, let queue) = next else {
            if case .ready(let queue) = next { queue.enqueueReady(self) }
            return
        }
        let lease = ExclusivityLease(categories: categories, scope: queue.exclusivityScope) { [self] lease in
            exclusivityGranted(lease)
        }
        let waiting = storage.withLock { state -> Bool in
            guard state.state == .waitingForExclusivity else { return false }
            state.exclusivityLease = lease
            return true
        }
        if waiting { lease.acquire() }
    }

    private func exclusivityGranted(_ lease: ExclusivityLease) {
        enum Next {
            case stale, deferred
            case ready(ProcedureQueue)
        }
        let next = storage.withLock { state -> Next in
            guard state.state == .waitingForExclusivity, state.exclusivityLease === lease, let queue = state.queue
            else { return .stale }
            state.state = .ready
            if state.flags[.defersReadyPush] {
                state.flags[.hasDeferredReadyPush] = true
                return .deferred
            }
            return .ready(queue)
        }
        switch next {
        case .stale: lease.release()
        case .deferred: break
        case .ready(let queue): queue.enqueueReady(self)
        }
    }

    /// Finishes a procedure that has not started executing (cancelled, or on a dependency cycle).
    func finishWithoutExecuting(error: (any Error)? = nil) {
        let transition = storage.withLock { state -> FinishTransition? in
            guard state.state >= .pending, state.state < .executing else { return nil }
            return state.beginFinishing(error: error)
        }
        guard let transition else { return }
        transition.evaluation?.cancel()
        complete(transition)
    }

    /// The common tail of every way to finish.
    private func complete(_ transition: FinishTransition) {
        transition.lease?.release()
        let parts: FinishedParts
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
