/// A procedure's state and every transition of its life, as one state machine.
///
/// Each event is a mutating method that checks the state, moves it, and returns an action: what
/// the caller must do outside the procedure's lock (tell observers, hand the procedure to its
/// queue, start an evaluation, finish). The machine does no work itself and knows no threads or
/// locks, so its transitions are tested by calling the events in any order
/// (Tests/ProcedureCoreTests/ProcedureLifecycleTests.swift). `Procedure` holds it behind its
/// lock and carries the actions out.
///
/// The states move forward only (``ProcedureState``):
///
/// | From                    | Event                                   | To                      |
/// |-------------------------|-----------------------------------------|-------------------------|
/// | initialized             | `enqueued`, no dependencies left        | ready, or evaluating    |
/// | initialized             | `enqueued`, dependencies left           | pending                 |
/// | pending                 | `beginEvaluation`                       | evaluatingConditions    |
/// | evaluatingConditions    | `conditionsPassed`, no exclusivity      | ready                   |
/// | evaluatingConditions    | `conditionsPassed`, exclusivity         | waitingForExclusivity   |
/// | waitingForExclusivity   | `exclusivityGranted`                    | ready                   |
/// | ready, or evaluating    | `startExecuting`, `conditionsPassedOnWorker` | executing          |
/// | executing               | `finish`                                | finishing or finished   |
/// | pending ..< executing   | `finishWithoutExecuting` (cancel, cycle, failed conditions) | finishing or finished |
/// | finishing               | `takeForFinished`                       | finished                |
///
/// Cancelling sets `isCancelled` in any state before finishing; a cancelled procedure never
/// moves to executing.
struct ProcedureLifecycle {
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

    /// The rarely used part, guarded by the procedure's lock.
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
        /// The last progress reported (Procedure+Progress.swift).
        var progress: ProcedureProgress?

        /// Whether finishing has more to do than tell dependents and the queue.
        var holdsFinishWork: Bool { !waiters.isEmpty || evaluation != nil || exclusivityLease != nil }
    }

    // MARK: Stored parts

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

    // MARK: Configuration

    /// Configuration (dependencies, conditions, exclusivity, inputs) is accepted only before the
    /// procedure is on a queue; later, the caller treats it as misuse.
    var acceptsConfiguration: Bool { state == .initialized }

    enum DependencyAddition { case added, duplicate, refused }

    /// Past this many dependencies, an identity set answers ``dependsOn(_:)``.
    static let scannedDependencyLimit = 32

    func dependsOn(_ procedure: Procedure) -> Bool {
        if let identities = extras?.dependencyIdentities { return identities.contains(ObjectIdentifier(procedure)) }
        return dependencies.contains(procedure)
    }

    /// Records a dependency the procedure now waits for. On `.added` the caller registers this
    /// procedure as the dependency's dependent (or reports `dependencyFinished` if it already finished).
    mutating func addDependency(_ procedure: Procedure) -> DependencyAddition {
        guard acceptsConfiguration else { return .refused }
        guard !dependsOn(procedure) else { return .duplicate }
        dependencies.append(procedure)
        if extras?.dependencyIdentities != nil {
            extras?.dependencyIdentities?.insert(ObjectIdentifier(procedure))
        } else if dependencies.count > Self.scannedDependencyLimit {
            extra.dependencyIdentities = Set(dependencies.map(ObjectIdentifier.init))
        }
        pendingDependencies += 1
        return .added
    }

    /// Forgets a dependency; true if it was one (the caller then withdraws from its dependents).
    mutating func removeDependency(_ procedure: Procedure) -> Bool {
        guard acceptsConfiguration, dependencies.remove(procedure) else { return false }
        extras?.dependencyIdentities?.remove(ObjectIdentifier(procedure))
        return true
    }

    /// A removed dependency was still being waited for.
    mutating func stopWaiting() {
        pendingDependencies -= 1
    }

    /// A condition was appended (the caller appends it to the list in the same lock).
    mutating func conditionAdded(isComposition: Bool) {
        if isComposition { flags[.hasComposedConditions] = true }
    }

    mutating func addExclusivityCategory(_ category: String) -> Bool {
        guard acceptsConfiguration else { return false }
        if !exclusivityCategories.contains(category) { extra.exclusivityCategories.append(category) }
        return true
    }

    /// Adds an observer, or returns the error to report at once if the procedure has finished.
    mutating func addObserver(_ observer: any ProcedureObserver) -> (any Error)?? {
        if state == .finished { return .some(error) }
        observers.append(observer)
        return .none
    }

    /// Adds a waiter; false if the procedure has finished, and the caller resumes it at once.
    mutating func addWaiter(_ waiter: CheckedContinuation<Void, Never>) -> Bool {
        if state == .finished { return false }
        extra.waiters.append(waiter)
        return true
    }

    enum Claim {
        case claimed
        case onQueue(ProcedureQueue)
        case started(ProcedureState)
    }

    /// Claims the procedure for a queue, unless it is already on one or past initialized.
    mutating func claim(by queue: ProcedureQueue) -> Claim {
        if let current = self.queue { return .onQueue(current) }
        guard state == .initialized else { return .started(state) }
        self.queue = queue
        return .claimed
    }

    // MARK: On the queue

    enum EnqueueAction {
        /// Ready with nothing to check: the queue puts it on its ready list.
        case ready
        /// Ready, with plain conditions its worker evaluates when it takes it (the caller flags
        /// the condition list for the worker in the same lock).
        case readyToEvaluateOnWorker
        /// Cancelled before it was enqueued: finish without executing.
        case finishWithoutExecuting
        /// Dependencies left: check for a cycle, then wait.
        case waitForDependencies
        /// Inputs, exclusivity or conditions the worker cannot evaluate: begin the evaluation
        /// now, with becoming ready deferred until `endEnqueueing`.
        case proceed
    }

    /// The queue linked the procedure into its list. `hasConditions` says whether it has any;
    /// `mayEvaluateOnWorker` is false while the queue is suspended.
    mutating func enqueued(hasConditions: Bool, mayEvaluateOnWorker: Bool) -> EnqueueAction {
        state = .pending
        if isCancelled { return .finishWithoutExecuting }
        guard pendingDependencies == 0 else { return .waitForDependencies }
        guard inputs.isEmpty, exclusivityCategories.isEmpty else {
            flags[.defersReadyPush] = true
            return .proceed
        }
        if !hasConditions {
            state = .ready
            return .ready
        }
        // Plain conditions and nothing else: a worker evaluates them when it takes the procedure
        // from the ready list, so the thread adding procedures does not evaluate them all itself.
        guard mayEvaluateOnWorker, !flags[.hasComposedConditions] else {
            flags[.defersReadyPush] = true
            return .proceed
        }
        state = .evaluatingConditions
        return .readyToEvaluateOnWorker
    }

    /// Ends the deferral `.proceed` began; true if the procedure became ready meanwhile, and the
    /// queue pushes it with its batch.
    mutating func endEnqueueing() -> Bool {
        flags[.defersReadyPush] = false
        defer { flags[.hasDeferredReadyPush] = false }
        return flags[.hasDeferredReadyPush]
    }

    /// One dependency finished; true when it was the last and the evaluation may begin.
    mutating func dependencyFinished() -> Bool {
        pendingDependencies -= 1
        return pendingDependencies == 0 && state == .pending && !isCancelled
    }

    /// What an evaluation begins with: inputs to take first, then the conditions.
    struct EvaluationStart {
        var inputs: [@Sendable () -> (any Error)?]
        var hasComposedConditions: Bool
    }

    /// Moves from pending to evaluating conditions, unless cancelled or on a dependency cycle.
    mutating func beginEvaluation() -> EvaluationStart? {
        guard state == .pending, !isCancelled, !flags[.isOnDependencyCycle] else { return nil }
        state = .evaluatingConditions
        let inputs = self.inputs
        extras?.inputs = []
        return EvaluationStart(inputs: inputs, hasComposedConditions: flags[.hasComposedConditions])
    }

    /// An evaluation object was made to wait for late answers; false if it is no longer wanted.
    mutating func evaluationStarted(_ evaluation: ConditionEvaluation) -> Bool {
        guard state == .evaluatingConditions else { return false }
        self.evaluation = evaluation
        return true
    }

    /// A worker's evaluation of plain conditions passed at once: executing, and the observers to
    /// tell, unless it was cancelled meanwhile.
    mutating func conditionsPassedOnWorker() -> [any ProcedureObserver]? {
        guard state == .evaluatingConditions, !isCancelled else { return nil }
        flags[.hasConditionResults] = true
        state = .executing
        return observers
    }

    /// The conditions failed; true if the caller should now cancel with their explanation.
    mutating func conditionsFailed(results: [ConditionResult?], in list: ConditionList?) -> Bool {
        guard state == .evaluatingConditions else { return false }
        publishConditionResults(results, in: list)
        evaluation = nil
        return true
    }

    enum PassAction {
        /// No longer evaluating (cancelled meanwhile): nothing to do.
        case none
        /// Ready during enqueueing: the queue pushes it with its batch.
        case deferred
        /// Ready: hand it to the queue.
        case ready(ProcedureQueue)
        /// Take an exclusivity lease on these categories first.
        case acquireExclusivity([String], ProcedureQueue)
    }

    /// The conditions passed (`results` is nil when there were none).
    mutating func conditionsPassed(results: [ConditionResult?]?, in list: ConditionList?) -> PassAction {
        guard state == .evaluatingConditions, let queue else { return .none }
        if let results {
            publishConditionResults(results, in: list)
            evaluation = nil
        }
        guard exclusivityCategories.isEmpty else {
            state = .waitingForExclusivity
            return .acquireExclusivity(exclusivityCategories, queue)
        }
        return becomeReady(queue)
    }

    /// A lease was made for the exclusivity wait; false if it is no longer wanted.
    mutating func leaseCreated(_ lease: ExclusivityLease) -> Bool {
        guard state == .waitingForExclusivity else { return false }
        exclusivityLease = lease
        return true
    }

    /// The lease was granted. `.none` means it is stale (the procedure moved on): release it.
    mutating func exclusivityGranted(_ lease: ExclusivityLease) -> PassAction {
        guard state == .waitingForExclusivity, exclusivityLease === lease, let queue else { return .none }
        return becomeReady(queue)
    }

    private mutating func becomeReady(_ queue: ProcedureQueue) -> PassAction {
        state = .ready
        if flags[.defersReadyPush] {
            flags[.hasDeferredReadyPush] = true
            return .deferred
        }
        return .ready(queue)
    }

    /// A worker took the procedure from the ready list: executing, and the observers to tell,
    /// unless its cancel has begun (which is finishing it).
    mutating func startExecuting() -> [any ProcedureObserver]? {
        guard state == .ready, !isCancelled else { return nil }
        state = .executing
        return observers
    }

    mutating func publishConditionResults(_ results: [ConditionResult?], in list: ConditionList?) {
        if flags[.hasComposedConditions] {
            extra.conditionTreeResults = results
        } else {
            list?.store(results)
        }
        flags[.hasConditionResults] = true
    }

    // MARK: Ending

    struct Cancellation {
        var phase: ProcedureState
        var observers: [any ProcedureObserver]
        var queue: ProcedureQueue?
        /// Not started and on a queue: finish it without executing (executing work stops
        /// cooperatively; an initialized procedure finishes once enqueued).
        var finishesNow: Bool { phase != .executing && phase != .initialized }
    }

    /// Records the cancellation; nil if already cancelled or finishing (a second call is ignored).
    /// The caller marks the condition list cancelled in the same lock.
    mutating func cancel(error newError: (any Error)?) -> Cancellation? {
        guard state < .finishing, !isCancelled else { return nil }
        isCancelled = true
        if error == nil, let newError { error = newError }
        return Cancellation(phase: state, observers: observers, queue: queue)
    }

    enum FinishAction {
        /// Nobody to tell but dependents and the queue: finished in this one step.
        case finished(queue: ProcedureQueue?, dependents: ProcedureList, error: (any Error)?)
        /// Observers, waiters, an evaluation or a lease to deal with: complete the transition.
        case finishing(FinishTransition)
        /// Not executing: a finish before executing is misuse, a second one is ignored.
        case refused(ProcedureState)
    }

    /// The work body finished.
    mutating func finish(error newError: (any Error)?) -> FinishAction {
        guard state == .executing else { return .refused(state) }
        guard observers.isEmpty, extras?.holdsFinishWork != true else {
            return .finishing(beginFinishing(error: newError))
        }
        if error == nil, let newError { error = newError }
        state = .finished
        var queue: ProcedureQueue?
        var dependents = ProcedureList()
        // Swapped out rather than copied, so the procedure lets go of them without extra retains.
        swap(&queue, &self.queue)
        swap(&dependents, &self.dependents)
        dependencies = ProcedureList()
        return .finished(queue: queue, dependents: dependents, error: error)
    }

    /// Finishes a procedure that has not started executing (cancelled, on a dependency cycle);
    /// nil if it already started or finished, or is not on a queue yet.
    mutating func finishWithoutExecuting(error newError: (any Error)?) -> FinishTransition? {
        guard state >= .pending, state < .executing else { return nil }
        return beginFinishing(error: newError)
    }

    private mutating func beginFinishing(error newError: (any Error)?) -> FinishTransition {
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

    /// Progress was reported: kept until the procedure finishes. Returns the observers to tell
    /// and the group to pass it on to, or nil once finishing (a late report is dropped).
    mutating func progressReported(
        _ progress: ProcedureProgress
    ) -> (observers: [any ProcedureObserver], group: GroupProcedure?)? {
        guard state < .finishing else { return nil }
        extra.progress = progress
        // Produced dependencies run on a group's queue without being its children.
        return (observers, flags[.isProducedDependency] ? nil : queue?.group)
    }

    /// The progress to show: what was reported, complete once the procedure succeeded.
    var progress: ProcedureProgress {
        let reported = extras?.progress ?? .notStarted
        return state == .finished && error == nil && !isCancelled ? reported.completing : reported
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

    /// What finishing must do outside the lock: cancel an evaluation, release a lease, tell
    /// will-finish observers, then (once `finished` is taken) everyone else.
    struct FinishTransition {
        var wasExecuting: Bool
        var observers: [any ProcedureObserver]
        var error: (any Error)?
        var evaluation: ConditionEvaluation?
        var lease: ExclusivityLease?
        var finished: FinishedParts?
    }

    /// Everyone to tell that the procedure finished.
    struct FinishedParts {
        var observers: [any ProcedureObserver]
        var dependents: ProcedureList
        var waiters: [CheckedContinuation<Void, Never>]
        var queue: ProcedureQueue?
    }
}
