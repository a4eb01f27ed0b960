/// A procedure's state and every transition of its life, as one state machine in swift-nio's
/// shape: what is valid only in some phases travels in that phase's payload, the storage is
/// private, every event returns an action, and a transition that cannot happen is a
/// precondition failure rather than a silent guard.
///
/// Each event is a mutating method that checks the phase, moves it, and returns what the caller
/// must do outside the procedure's lock (tell observers, hand the procedure to its queue, start
/// an evaluation, finish). Events that may legitimately arrive late, because another thread
/// moved the procedure on first (a cancel racing an evaluation, a lease granted after the
/// procedure finished), answer with an explicit `stale` or `ignored` action. The machine does
/// no work itself and knows no threads or locks, so its transitions are tested by calling the
/// events in every order (Tests/ProcedureCoreTests/ProcedureLifecycleTests.swift). `Procedure`
/// holds it behind its lock and carries the actions out.
///
/// The phases move forward only (``ProcedureState``):
///
/// | From                    | Event                                   | To                      |
/// |-------------------------|-----------------------------------------|-------------------------|
/// | initialized             | `enqueued`, no dependencies left        | ready, or evaluating    |
/// | initialized             | `enqueued`, dependencies left           | pending                 |
/// | pending                 | `beginEvaluation`                       | evaluatingConditions    |
/// | evaluatingConditions    | `conditionsPassed`, no exclusivity      | ready                   |
/// | evaluatingConditions    | `conditionsPassed`, exclusivity         | waitingForExclusivity   |
/// | waitingForExclusivity   | `exclusivityGranted`                    | ready (holding the lease) |
/// | ready, or evaluating    | `startExecuting`, `conditionsPassedOnWorker` | executing          |
/// | executing               | `finish`                                | finishing or finished   |
/// | pending ..< executing   | `finishWithoutExecuting` (cancel, cycle, failed conditions) | finishing or finished |
/// | finishing               | `takeForFinished`                       | finished                |
///
/// Cancelling marks the phase it arrives in (`cancelled: true`), in any phase before finishing,
/// and the mark travels with every later phase to `finished`: a cancelled procedure never moves to
/// executing, and there is no cancelled flag beside the phase to disagree with it.
///
/// Every event switches over every phase (no `default`, no `if case`): a new phase does not
/// compile until each event has decided what it means there, as in swift-nio's and
/// swift-service-lifecycle's machines.
struct ProcedureLifecycle {
    /// Where the procedure is, with what is valid only there: the evaluation that waits for late
    /// answers while conditions are evaluated, and the exclusivity lease from the moment it is
    /// made until the procedure finishes.
    /// Each phase says whether the procedure was cancelled; finishing and finished keep it, so
    /// that a finished procedure still answers whether it was cancelled.
    enum Phase {
        case initialized(cancelled: Bool)
        case pending(cancelled: Bool)
        case evaluatingConditions(ConditionEvaluation?, cancelled: Bool)
        case waitingForExclusivity(ExclusivityLease?, cancelled: Bool)
        case ready(lease: ExclusivityLease?, cancelled: Bool)
        case executing(lease: ExclusivityLease?, cancelled: Bool)
        case finishing(cancelled: Bool)
        case finished(cancelled: Bool)

        var state: ProcedureState {
            switch self {
            case .initialized: .initialized
            case .pending: .pending
            case .evaluatingConditions: .evaluatingConditions
            case .waitingForExclusivity: .waitingForExclusivity
            case .ready: .ready
            case .executing: .executing
            case .finishing: .finishing
            case .finished: .finished
            }
        }

        /// The lease held, in the phases that may hold one.
        var lease: ExclusivityLease? {
            switch self {
            case .waitingForExclusivity(let lease, _), .ready(let lease, _), .executing(let lease, _): lease
            case .initialized, .pending, .evaluatingConditions, .finishing, .finished: nil
            }
        }

        var isCancelled: Bool {
            switch self {
            case .initialized(let cancelled), .pending(let cancelled), .finishing(let cancelled),
                .finished(let cancelled):
                cancelled
            case .evaluatingConditions(_, let cancelled), .waitingForExclusivity(_, let cancelled),
                .ready(_, let cancelled), .executing(_, let cancelled):
                cancelled
            }
        }

        /// The same phase, marked cancelled.
        var markedCancelled: Phase {
            switch self {
            case .initialized: .initialized(cancelled: true)
            case .pending: .pending(cancelled: true)
            case .evaluatingConditions(let evaluation, _): .evaluatingConditions(evaluation, cancelled: true)
            case .waitingForExclusivity(let lease, _): .waitingForExclusivity(lease, cancelled: true)
            case .ready(let lease, _): .ready(lease: lease, cancelled: true)
            case .executing(let lease, _): .executing(lease: lease, cancelled: true)
            case .finishing: .finishing(cancelled: true)
            case .finished: .finished(cancelled: true)
            }
        }
    }

    // The phase (a tag, a reference and its cancelled mark) first, then the small fields in its
    // second word; the error is out of line, so the machine stays seven words.
    private(set) var phase: Phase = .initialized(cancelled: false)
    private(set) var flags = Flags()
    private(set) var pendingDependencies: Int32 = 0
    private(set) var dependencies = ProcedureList()
    private(set) var dependents = ProcedureList()
    private(set) var observers: [any ProcedureObserver] = []
    private(set) var queue: ProcedureQueue?
    /// What most procedures never use, out of line so that the common procedure stays small.
    private var extras: Extras?

    /// The public state the phase stands for.
    var state: ProcedureState { phase.state }

    /// Cancelled, in whatever phase (read from the phase's mark).
    var isCancelled: Bool { phase.isCancelled }

    /// Yes-or-no facts about the procedure, one bit each: `lifecycle.flags[.isProducedDependency]`.
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
        /// While the queue is adding this procedure, becoming ready is left in the phase instead
        /// of pushed, so the queue can push a whole batch under one lock (`endEnqueueing` reads
        /// whether it became ready from the phase: no second flag to fall out of step).
        static let defersReadyPush = Flags(rawValue: 1 << 4)
        /// The answers are the shared condition list's common one (``ConditionList/CommonAnswer``).
        static let hasCommonConditionAnswer = Flags(rawValue: 1 << 5)
        /// Some condition is an AllOf, AnyOf, Negated or Silent (decided once, when added).
        static let hasComposedConditions = Flags(rawValue: 1 << 6)

        subscript(_ flag: Flags) -> Bool {
            get { contains(flag) }
            set { if newValue { insert(flag) } else { remove(flag) } }
        }
    }

    /// The rarely used part.
    private final class Extras {
        var name: String?
        /// The first error recorded: out of line, since most procedures succeed.
        var error: (any Error)?
        var exclusivityCategories: [String] = []
        var inputs: [@Sendable () -> (any Error)?] = []
        var waiters: [CheckedContinuation<Void, Never>] = []
        /// For procedures with many dependencies, so the duplicate check stays constant-time.
        var dependencyIdentities: Set<ObjectIdentifier>?
        /// The answers the condition list does not keep: one per leaf of the tree when the
        /// conditions include compositions, one per condition when the list is shared.
        var conditionTreeResults: [ConditionResult?]?
        /// The last progress reported (Procedure+Progress.swift).
        var progress: ProcedureProgress?
    }

    /// The out-of-line part, created on first write.
    private var extra: Extras {
        mutating get {
            if let extras { return extras }
            let created = Extras()
            extras = created
            return created
        }
    }

    // MARK: Reading

    /// A name given by the user; out of line, since many procedures go by their type's name.
    /// A label, not part of the machine: it may change at any time.
    var name: String? {
        get { extras?.name }
        set { if newValue != nil || extras != nil { extra.name = newValue } }
    }

    /// The first error recorded.
    var error: (any Error)? { extras?.error }

    /// Records `newError` unless an error was recorded first.
    private mutating func record(_ newError: (any Error)?) {
        if let newError, extras?.error == nil { extra.error = newError }
    }

    var exclusivityCategories: [String] { extras?.exclusivityCategories ?? [] }
    var conditionTreeResults: [ConditionResult?]? { extras?.conditionTreeResults }

    /// The progress to show: what was reported, complete once the procedure succeeded.
    var progress: ProcedureProgress {
        let reported = extras?.progress ?? .notStarted
        return state == .finished && error == nil && !isCancelled ? reported.completing : reported
    }

    // MARK: Facts others record

    // Facts, not transitions: they change no phase and ask nothing of the caller.

    /// Made by a condition of another procedure.
    mutating func markProducedDependency() { flags[.isProducedDependency] = true }
    /// Found on a dependency cycle: it never begins its evaluation.
    mutating func markOnDependencyCycle() { flags[.isOnDependencyCycle] = true }
    /// Everything reachable from here is enqueued and acyclic.
    mutating func markSealedAgainstCycles() { flags[.isSealedAgainstCycles] = true }

    // MARK: Configuration

    /// Configuration (dependencies, conditions, exclusivity, inputs, priority) is accepted only
    /// before the procedure is on a queue; later, the caller treats it as misuse.
    enum ConfigurationAction {
        case accepted
        case refused(ProcedureState)
    }

    private var configurationAction: ConfigurationAction {
        switch phase {
        case .initialized: .accepted
        case .pending, .evaluatingConditions, .waitingForExclusivity, .ready, .executing, .finishing, .finished:
            .refused(state)
        }
    }

    /// A setting outside the machine (a priority) is about to change.
    func configure() -> ConfigurationAction { configurationAction }

    enum DependencyAddition { case added, duplicate, refused }

    /// Past this many dependencies, an identity set answers ``dependsOn(_:)``.
    static let scannedDependencyLimit = 32

    func dependsOn(_ procedure: Procedure) -> Bool {
        if let identities = extras?.dependencyIdentities { return identities.contains(ObjectIdentifier(procedure)) }
        return dependencies.contains(procedure)
    }

    /// Records a dependency the procedure now waits for. On `.added` the caller registers this
    /// procedure as the dependency's dependent (`addDependent`), which may report it finished.
    mutating func addDependency(_ procedure: Procedure) -> DependencyAddition {
        guard case .accepted = configurationAction else { return .refused }
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

    enum DependencyRemoval {
        /// The caller withdraws from the dependency's dependents, and reports `stopWaiting`
        /// if it was still waiting there.
        case removed
        case notADependency
        case refused
    }

    mutating func removeDependency(_ procedure: Procedure) -> DependencyRemoval {
        guard case .accepted = configurationAction else { return .refused }
        guard dependencies.remove(procedure) else { return .notADependency }
        extras?.dependencyIdentities?.remove(ObjectIdentifier(procedure))
        return .removed
    }

    /// How many dependencies are still waited for, after a removal.
    enum WaitingCount {
        case waiting(Int32)
    }

    /// A removed dependency was still being waited for.
    mutating func stopWaiting() -> WaitingCount {
        precondition(pendingDependencies > 0, "stopped waiting for a dependency that was not waited for")
        pendingDependencies -= 1
        return .waiting(pendingDependencies)
    }

    enum DependentAddition {
        case added
        /// Already finished: the caller reports `dependencyFinished` to the dependent at once.
        case alreadyFinished
    }

    /// `procedure` waits for this one.
    mutating func addDependent(_ procedure: Procedure) -> DependentAddition {
        switch phase {
        case .finished: return .alreadyFinished
        case .initialized, .pending, .evaluatingConditions, .waitingForExclusivity, .ready, .executing, .finishing:
            dependents.append(procedure)
            return .added
        }
    }

    enum DependentRemoval { case removed, notWaiting }

    /// `procedure` no longer waits for this one.
    mutating func removeDependent(_ procedure: Procedure) -> DependentRemoval {
        dependents.remove(procedure) ? .removed : .notWaiting
    }

    /// A condition is appended (the caller appends it to the list in the same lock, on `.accepted`).
    mutating func addCondition(isComposition: Bool) -> ConfigurationAction {
        let action = configurationAction
        if case .accepted = action, isComposition { flags[.hasComposedConditions] = true }
        return action
    }

    mutating func addExclusivityCategory(_ category: String) -> ConfigurationAction {
        let action = configurationAction
        if case .accepted = action, !exclusivityCategories.contains(category) {
            extra.exclusivityCategories.append(category)
        }
        return action
    }

    /// An input to take from a dependency before the conditions.
    mutating func addInput(_ input: @escaping @Sendable () -> (any Error)?) -> ConfigurationAction {
        let action = configurationAction
        if case .accepted = action { extra.inputs.append(input) }
        return action
    }

    enum ObserverAddition {
        case added
        /// Finished already: the caller tells the observer at once, with this error.
        case tellFinished(error: (any Error)?)
    }

    mutating func addObserver(_ observer: any ProcedureObserver) -> ObserverAddition {
        switch phase {
        case .finished: return .tellFinished(error: error)
        case .initialized, .pending, .evaluatingConditions, .waitingForExclusivity, .ready, .executing, .finishing:
            observers.append(observer)
            return .added
        }
    }

    enum WaiterAddition { case waiting, resumeNow }

    mutating func addWaiter(_ waiter: CheckedContinuation<Void, Never>) -> WaiterAddition {
        switch phase {
        case .finished: return .resumeNow
        case .initialized, .pending, .evaluatingConditions, .waitingForExclusivity, .ready, .executing, .finishing:
            extra.waiters.append(waiter)
            return .waiting
        }
    }

    enum Claim {
        case claimed
        case onQueue(ProcedureQueue)
        case started(ProcedureState)
    }

    /// Claims the procedure for a queue, unless it is already on one or past initialized.
    mutating func claim(by queue: ProcedureQueue) -> Claim {
        if let current = self.queue { return .onQueue(current) }
        switch phase {
        case .initialized:
            self.queue = queue
            return .claimed
        case .pending, .evaluatingConditions, .waitingForExclusivity, .ready, .executing, .finishing, .finished:
            return .started(state)
        }
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

    /// The queue that claimed the procedure linked it into its list. `hasConditions` says
    /// whether it has any; `mayEvaluateOnWorker` is false while the queue is suspended.
    mutating func enqueued(hasConditions: Bool, mayEvaluateOnWorker: Bool) -> EnqueueAction {
        switch phase {
        case .initialized(let cancelled) where queue != nil:
            phase = .pending(cancelled: cancelled)
            if cancelled { return .finishWithoutExecuting }
        case .initialized, .pending, .evaluatingConditions, .waitingForExclusivity, .ready, .executing, .finishing,
            .finished:
            preconditionFailure("enqueued while \(state), \(queue == nil ? "unclaimed" : "claimed")")
        }
        guard pendingDependencies == 0 else { return .waitForDependencies }
        guard extras?.inputs.isEmpty ?? true, exclusivityCategories.isEmpty else {
            flags[.defersReadyPush] = true
            return .proceed
        }
        if !hasConditions {
            phase = .ready(lease: nil, cancelled: false)
            return .ready
        }
        // Plain conditions and nothing else: a worker evaluates them when it takes the procedure
        // from the ready list, so the thread adding procedures does not evaluate them all itself.
        guard mayEvaluateOnWorker, !flags[.hasComposedConditions] else {
            flags[.defersReadyPush] = true
            return .proceed
        }
        phase = .evaluatingConditions(nil, cancelled: false)
        return .readyToEvaluateOnWorker
    }

    enum EndEnqueueAction {
        /// It became ready meanwhile: the queue pushes it with its batch.
        case pushWithBatch
        case nothing
    }

    /// Ends the deferral `.proceed` began.
    mutating func endEnqueueing() -> EndEnqueueAction {
        precondition(flags[.defersReadyPush], "endEnqueueing without a deferral")
        flags[.defersReadyPush] = false
        // Every move to ready during the deferral was left unpushed, so ready now means deferred;
        // a procedure cancelled meanwhile is finishing by its cancel, not pushed.
        switch phase {
        case .ready(_, cancelled: false): return .pushWithBatch
        case .initialized, .pending, .evaluatingConditions, .waitingForExclusivity, .ready, .executing, .finishing,
            .finished:
            return .nothing
        }
    }

    enum DependencyFinishedAction {
        /// It was the last, and the evaluation may begin.
        case beginEvaluation
        case keepWaiting
    }

    /// One dependency finished.
    mutating func dependencyFinished() -> DependencyFinishedAction {
        precondition(pendingDependencies > 0, "a dependency finished that was not waited for")
        pendingDependencies -= 1
        switch phase {
        case .pending(cancelled: false) where pendingDependencies == 0: return .beginEvaluation
        case .initialized, .pending, .evaluatingConditions, .waitingForExclusivity, .ready, .executing, .finishing,
            .finished:
            return .keepWaiting
        }
    }

    enum EvaluationStart {
        /// Take `inputs` first, then evaluate the conditions.
        case evaluate(inputs: [@Sendable () -> (any Error)?], hasComposedConditions: Bool)
        /// No longer pending (cancelled and finishing, or begun already), or on a dependency cycle.
        case stale
    }

    /// Moves from pending to evaluating conditions.
    mutating func beginEvaluation() -> EvaluationStart {
        switch phase {
        case .pending(cancelled: false) where !flags[.isOnDependencyCycle]:
            phase = .evaluatingConditions(nil, cancelled: false)
        case .initialized, .pending, .evaluatingConditions, .waitingForExclusivity, .ready, .executing, .finishing,
            .finished:
            return .stale
        }
        let inputs = extras?.inputs ?? []
        extras?.inputs = []
        return .evaluate(inputs: inputs, hasComposedConditions: flags[.hasComposedConditions])
    }

    enum EvaluationAction {
        case start
        /// No longer evaluating (cancelled meanwhile): the evaluation is not wanted.
        case discard
    }

    /// An evaluation object was made to wait for late answers.
    mutating func evaluationStarted(_ evaluation: ConditionEvaluation) -> EvaluationAction {
        switch phase {
        case .evaluatingConditions(let current, let cancelled):
            precondition(current == nil, "a second evaluation started")
            phase = .evaluatingConditions(evaluation, cancelled: cancelled)
            return .start
        case .initialized, .pending, .waitingForExclusivity, .ready, .executing, .finishing, .finished: return .discard
        }
    }

    enum StartAction {
        /// Executing: tell these observers, then run the body.
        case execute([any ProcedureObserver])
        /// Not to be started: cancelled (its cancel is finishing it) or no longer in that phase.
        case stale
    }

    /// Where the answers of plain conditions that passed at once on a worker are kept.
    enum PassedAnswers {
        /// In the list (a procedure's own), or nowhere: they are all the default.
        case inList
        /// They are the shared list's common answer (``ConditionList/CommonAnswer``).
        case common
        /// In the procedure: a shared list keeps none.
        case own([ConditionResult?])
    }

    /// A worker's evaluation of plain conditions passed at once.
    mutating func conditionsPassedOnWorker(answers: PassedAnswers = .inList) -> StartAction {
        switch phase {
        case .evaluatingConditions(_, cancelled: false): break
        case .initialized, .pending, .evaluatingConditions, .waitingForExclusivity, .ready, .executing, .finishing,
            .finished:
            return .stale
        }
        switch answers {
        case .inList: flags[.hasCommonConditionAnswer] = false
        case .common: flags[.hasCommonConditionAnswer] = true
        case .own(let results):
            flags[.hasCommonConditionAnswer] = false
            extra.conditionTreeResults = results
        }
        flags[.hasConditionResults] = true
        phase = .executing(lease: nil, cancelled: false)
        return .execute(observers)
    }

    enum FailAction {
        /// Cancel with the explanation of what was just published.
        case cancel
        case stale
    }

    /// The conditions failed.
    mutating func conditionsFailed(results: [ConditionResult?], in list: ConditionList?) -> FailAction {
        switch phase {
        case .evaluatingConditions(_, let cancelled):
            publishConditionResults(results, in: list)
            phase = .evaluatingConditions(nil, cancelled: cancelled)
            return .cancel
        case .initialized, .pending, .waitingForExclusivity, .ready, .executing, .finishing, .finished: return .stale
        }
    }

    enum PassAction {
        /// No longer evaluating (cancelled meanwhile), or a lease granted too late: nothing to
        /// do but release a granted lease.
        case stale
        /// Ready during enqueueing: the queue pushes it with its batch.
        case deferred
        /// Ready: hand it to the queue.
        case ready(ProcedureQueue)
        /// Take an exclusivity lease on these categories first.
        case acquireExclusivity([String], ProcedureQueue)
    }

    /// The conditions passed (`results` is nil when there were none).
    mutating func conditionsPassed(results: [ConditionResult?]?, in list: ConditionList?) -> PassAction {
        let cancelled: Bool
        switch phase {
        case .evaluatingConditions(_, let mark): cancelled = mark
        case .initialized, .pending, .waitingForExclusivity, .ready, .executing, .finishing, .finished: return .stale
        }
        guard let queue else { preconditionFailure("evaluating conditions off a queue") }
        if let results { publishConditionResults(results, in: list) }
        guard exclusivityCategories.isEmpty else {
            phase = .waitingForExclusivity(nil, cancelled: cancelled)
            return .acquireExclusivity(exclusivityCategories, queue)
        }
        return becomeReady(queue, lease: nil, cancelled: cancelled)
    }

    enum LeaseAction {
        case acquire
        /// No longer waiting (cancelled meanwhile): never acquired, so nothing to release.
        case discard
    }

    /// A lease was made for the exclusivity wait.
    mutating func leaseCreated(_ lease: ExclusivityLease) -> LeaseAction {
        switch phase {
        case .waitingForExclusivity(let current, let cancelled):
            precondition(current == nil, "a second lease made")
            phase = .waitingForExclusivity(lease, cancelled: cancelled)
            return .acquire
        case .initialized, .pending, .evaluatingConditions, .ready, .executing, .finishing, .finished: return .discard
        }
    }

    /// The lease was granted. `.stale` means the procedure moved on: release the lease.
    mutating func exclusivityGranted(_ lease: ExclusivityLease) -> PassAction {
        switch phase {
        case .waitingForExclusivity(let current, let cancelled) where current === lease:
            guard let queue else { return .stale }
            return becomeReady(queue, lease: lease, cancelled: cancelled)
        case .initialized, .pending, .evaluatingConditions, .waitingForExclusivity, .ready, .executing, .finishing,
            .finished:
            return .stale
        }
    }

    private mutating func becomeReady(_ queue: ProcedureQueue, lease: ExclusivityLease?, cancelled: Bool)
        -> PassAction
    {
        phase = .ready(lease: lease, cancelled: cancelled)
        return flags[.defersReadyPush] ? .deferred : .ready(queue)
    }

    /// A worker took the procedure from the ready list.
    mutating func startExecuting() -> StartAction {
        switch phase {
        case .ready(let lease, cancelled: false):
            phase = .executing(lease: lease, cancelled: false)
            return .execute(observers)
        case .initialized, .pending, .evaluatingConditions, .waitingForExclusivity, .ready, .executing, .finishing,
            .finished:
            return .stale
        }
    }

    private mutating func publishConditionResults(_ results: [ConditionResult?], in list: ConditionList?) {
        if flags[.hasComposedConditions] || list?.isShared == true {
            extra.conditionTreeResults = results
        } else {
            list?.store(results)
        }
        flags[.hasConditionResults] = true
    }

    enum ProgressAction {
        /// Tell these observers, and pass it on to the group.
        case tell([any ProcedureObserver], group: GroupProcedure?)
        /// Finishing or finished: a late report is dropped.
        case drop
    }

    /// Progress was reported: kept until the procedure finishes.
    mutating func progressReported(_ progress: ProcedureProgress) -> ProgressAction {
        switch phase {
        case .initialized, .pending, .evaluatingConditions, .waitingForExclusivity, .ready, .executing:
            extra.progress = progress
        case .finishing, .finished: return .drop
        }
        // Produced dependencies run on a group's queue without being its children.
        return .tell(observers, group: flags[.isProducedDependency] ? nil : queue?.group)
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

    enum CancelAction {
        /// The caller marks the condition list cancelled in the same lock, then tells observers.
        case cancelled(Cancellation)
        /// Already cancelled, or finishing: a second call is ignored.
        case ignored
    }

    mutating func cancel(error newError: (any Error)?) -> CancelAction {
        switch phase {
        case .initialized(cancelled: false), .pending(cancelled: false), .evaluatingConditions(_, cancelled: false),
            .waitingForExclusivity(_, cancelled: false), .ready(_, cancelled: false), .executing(_, cancelled: false):
            phase = phase.markedCancelled
        case .initialized, .pending, .evaluatingConditions, .waitingForExclusivity, .ready, .executing, .finishing,
            .finished:
            return .ignored
        }
        record(newError)
        return .cancelled(Cancellation(phase: state, observers: observers, queue: queue))
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
        let lease: ExclusivityLease?
        switch phase {
        case .executing(let held, _): lease = held
        case .initialized, .pending, .evaluatingConditions, .waitingForExclusivity, .ready, .finishing, .finished:
            return .refused(state)
        }
        guard observers.isEmpty, lease == nil, extras?.waiters.isEmpty ?? true else {
            return .finishing(beginFinishing(error: newError))
        }
        record(newError)
        phase = .finished(cancelled: isCancelled)
        var queue: ProcedureQueue?
        var dependents = ProcedureList()
        // Swapped out rather than copied, so the procedure lets go of them without extra retains.
        swap(&queue, &self.queue)
        swap(&dependents, &self.dependents)
        dependencies = ProcedureList()
        return .finished(queue: queue, dependents: dependents, error: error)
    }

    enum FinishWithoutExecutingAction {
        case finishing(FinishTransition)
        /// Started or finished already, or not on a queue yet.
        case ignored
    }

    /// Finishes a procedure that has not started executing (cancelled, on a dependency cycle).
    mutating func finishWithoutExecuting(error newError: (any Error)?) -> FinishWithoutExecutingAction {
        switch phase {
        case .pending, .evaluatingConditions, .waitingForExclusivity, .ready:
            return .finishing(beginFinishing(error: newError))
        case .initialized, .executing, .finishing, .finished: return .ignored
        }
    }

    private mutating func beginFinishing(error newError: (any Error)?) -> FinishTransition {
        let (evaluation, wasExecuting, lease): (ConditionEvaluation?, Bool, ExclusivityLease?) =
            switch phase {
            case .evaluatingConditions(let current, _): (current, false, nil)
            case .waitingForExclusivity(let lease, _), .ready(let lease, _): (nil, false, lease)
            case .executing(let lease, _): (nil, true, lease)
            case .initialized, .pending, .finishing, .finished: (nil, false, nil)
            }
        phase = .finishing(cancelled: isCancelled)
        record(newError)
        var transition = FinishTransition(
            wasExecuting: wasExecuting, observers: observers, error: error, evaluation: evaluation, lease: lease)
        // With nobody to tell about will-finish, finishing and finished are one step.
        if observers.isEmpty { transition.finished = takeForFinished() }
        return transition
    }

    /// Moves to finished and lets go of everything the procedure held.
    mutating func takeForFinished() -> FinishedParts {
        switch phase {
        case .finishing(let cancelled): phase = .finished(cancelled: cancelled)
        case .initialized, .pending, .evaluatingConditions, .waitingForExclusivity, .ready, .executing, .finished:
            preconditionFailure("takeForFinished while \(state)")
        }
        let parts = FinishedParts(
            observers: observers, dependents: dependents, waiters: extras?.waiters ?? [], queue: queue)
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
