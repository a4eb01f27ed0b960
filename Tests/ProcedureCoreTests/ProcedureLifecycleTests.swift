import TestSupport
import Testing

@testable import ProcedureCore

/// The lifecycle state machine alone: events in, actions out, no threads and no locks. The
/// procedures and queue here are only identities the machine hands back; nothing runs.
@Suite
struct ProcedureLifecycleTests {
    let queue = ProcedureQueue(name: "machine")

    /// Records a failed expectation where a `guard case` did not match, so the test can return.
    func unexpected(_ comment: Comment, sourceLocation: SourceLocation = #_sourceLocation) {
        Issue.record(comment, sourceLocation: sourceLocation)
    }

    /// A machine claimed by `queue` and enqueued, as the queue leaves it.
    func enqueued(_ machine: inout ProcedureLifecycle, conditions: Bool = false) -> ProcedureLifecycle.EnqueueAction {
        guard case .claimed = machine.claim(by: queue) else {
            Issue.record("a fresh machine refused to be claimed")
            return .finishWithoutExecuting
        }
        return machine.enqueued(hasConditions: conditions, mayEvaluateOnWorker: true)
    }

    /// A machine driven by events to `phase`, as a queue would take it there.
    func machine(in phase: ProcedureState) -> ProcedureLifecycle {
        var machine = ProcedureLifecycle()
        if phase == .initialized { return machine }
        if phase == .pending {
            _ = machine.addDependency(Procedure(name: "before"))
            _ = enqueued(&machine)
            return machine
        }
        if phase == .evaluatingConditions {
            guard case .readyToEvaluateOnWorker = enqueued(&machine, conditions: true) else { return machine }
            return machine
        }
        if phase == .waitingForExclusivity {
            _ = machine.addExclusivityCategory("category")
            _ = enqueued(&machine)
            _ = machine.beginEvaluation()
            _ = machine.conditionsPassed(results: nil, in: nil)
            return machine
        }
        _ = enqueued(&machine)
        if phase == .executing { _ = machine.startExecuting() }
        return machine
    }

    /// A machine that waited for a dependency and is now evaluating its conditions.
    func evaluatingAfterDependency() -> ProcedureLifecycle {
        var machine = ProcedureLifecycle()
        _ = machine.addDependency(Procedure(name: "before"))
        _ = enqueued(&machine)
        _ = machine.dependencyFinished()
        _ = machine.beginEvaluation()
        return machine
    }

    @Test("1: nothing to wait for: ready, executing, then finished in one step that hands over dependents and queue")
    func commonPath() {
        var machine = ProcedureLifecycle()
        let dependent = Procedure(name: "dependent")
        guard case .added = machine.addDependent(dependent) else { return unexpected("dependent refused") }
        guard case .ready = enqueued(&machine) else { return unexpected("not ready at once") }
        #expect(machine.state == .ready)
        guard case .execute = machine.startExecuting() else { return unexpected("did not start") }
        #expect(machine.state == .executing)
        guard case .finished(let owner, let dependents, let error) = machine.finish(error: TestError("done")) else {
            return unexpected("no one-step finish without observers")
        }
        #expect(owner === queue)
        #expect(dependents.array.map(ObjectIdentifier.init) == [ObjectIdentifier(dependent)])
        #expect((error as? TestError) == TestError("done"))
        #expect(machine.state == .finished)
        #expect(machine.queue == nil && machine.dependents.isEmpty, "a finished procedure lets go")
        guard case .alreadyFinished = machine.addDependent(Procedure(name: "late")) else {
            return unexpected("a late dependent would wait forever")
        }
    }

    @Test("1: finish is refused before executing and after finishing; the state does not move")
    func finishRefused() {
        var machine = ProcedureLifecycle()
        guard case .refused(.initialized) = machine.finish(error: nil) else { return unexpected("finish accepted") }
        _ = enqueued(&machine)
        guard case .refused(.ready) = machine.finish(error: nil) else { return unexpected("finish accepted") }
        #expect(machine.state == .ready)
        _ = machine.startExecuting()
        _ = machine.finish(error: nil)
        guard case .refused(.finished) = machine.finish(error: TestError("late")) else {
            return unexpected("a second finish accepted")
        }
        #expect(machine.error == nil, "a refused finish records no error")
        guard case .ignored = machine.cancel(error: nil) else {
            return unexpected("cancelling a finished procedure did something")
        }
    }

    @Test(
        "4: cancelling finishes at once only a procedure on a queue that has not started",
        arguments: [
            (ProcedureState.initialized, false), (.pending, true), (.evaluatingConditions, true),
            (.waitingForExclusivity, true), (.ready, true), (.executing, false),
        ])
    func cancelInPhase(phase: ProcedureState, finishesNow: Bool) {
        var machine = machine(in: phase)
        #expect(machine.state == phase)
        guard case .cancelled(let cancellation) = machine.cancel(error: TestError("first")) else {
            return unexpected("not cancelled")
        }
        #expect(cancellation.phase == phase)
        #expect(cancellation.finishesNow == finishesNow)
        #expect(machine.isCancelled)
        guard case .ignored = machine.cancel(error: TestError("second")) else {
            return unexpected("a second cancel was not ignored")
        }
        #expect((machine.error as? TestError) == TestError("first"), "the first error wins")
        // A cancelled procedure never starts, whichever way it would have.
        guard case .stale = machine.startExecuting(), case .stale = machine.conditionsPassedOnWorker(),
            case .stale = machine.beginEvaluation()
        else { return unexpected("a cancelled procedure started") }
        #expect(machine.state == phase)
    }

    @Test("4: a procedure cancelled before it is enqueued finishes without executing when it is")
    func cancelledBeforeEnqueue() {
        var machine = ProcedureLifecycle()
        _ = machine.cancel(error: nil)
        guard case .finishWithoutExecuting = enqueued(&machine) else { return unexpected("would run") }
        guard case .finishing(let transition) = machine.finishWithoutExecuting(error: nil) else {
            return unexpected("did not finish")
        }
        #expect(transition.wasExecuting == false)
        #expect(transition.finished != nil, "no observers: finished in the same step")
        #expect(machine.state == .finished)
        guard case .ignored = machine.finishWithoutExecuting(error: nil) else {
            return unexpected("finished twice")
        }
    }

    @Test("2: dependencies: a repeated one counts once, the last to finish lets the evaluation begin")
    func dependencies() {
        var machine = ProcedureLifecycle()
        let first = Procedure(name: "first")
        let second = Procedure(name: "second")
        guard case .added = machine.addDependency(first), case .duplicate = machine.addDependency(first),
            case .added = machine.addDependency(second)
        else { return unexpected("dependencies not counted") }
        #expect(machine.pendingDependencies == 2)
        guard case .waitForDependencies = enqueued(&machine) else { return unexpected("did not wait") }
        #expect(machine.state == .pending)
        guard case .keepWaiting = machine.dependencyFinished(), case .beginEvaluation = machine.dependencyFinished()
        else { return unexpected("the last dependency did not begin the evaluation") }
        guard case .evaluate = machine.beginEvaluation() else { return unexpected("no evaluation") }
        #expect(machine.state == .evaluatingConditions)
        guard case .stale = machine.beginEvaluation() else { return unexpected("an evaluation began twice") }
        guard case .ready(let owner) = machine.conditionsPassed(results: nil, in: nil) else {
            return unexpected("not ready after conditions")
        }
        #expect(owner === queue)
    }

    @Test("2: a removed dependency that was still waited for is no longer counted")
    func removedDependency() {
        var machine = ProcedureLifecycle()
        let dependency = Procedure(name: "dependency")
        _ = machine.addDependency(dependency)
        guard case .removed = machine.removeDependency(dependency),
            case .notADependency = machine.removeDependency(dependency)
        else { return unexpected("removal not told apart") }
        guard case .waiting(0) = machine.stopWaiting() else { return unexpected("still counted") }
        guard case .ready = enqueued(&machine) else { return unexpected("waited for a removed dependency") }
    }

    @Test("2: a procedure on a dependency cycle never begins its evaluation")
    func cycle() {
        var machine = ProcedureLifecycle()
        _ = machine.addDependency(Procedure(name: "loop"))
        _ = enqueued(&machine)
        machine.markOnDependencyCycle()
        guard case .beginEvaluation = machine.dependencyFinished() else { return unexpected("still waiting") }
        guard case .stale = machine.beginEvaluation() else { return unexpected("a cycle member began") }
        guard case .finishing = machine.finishWithoutExecuting(error: nil) else { return unexpected("not finished") }
    }

    @Test("configuration is refused once the procedure is on a queue")
    func configurationAfterEnqueue() {
        var machine = ProcedureLifecycle()
        guard case .accepted = machine.configure() else { return unexpected("refused before enqueueing") }
        _ = enqueued(&machine)
        guard case .refused(.ready) = machine.configure() else { return unexpected("accepted on a queue") }
        guard case .refused = machine.addDependency(Procedure(name: "late")) else {
            return unexpected("a late dependency was accepted")
        }
        guard case .refused = machine.addExclusivityCategory("late"), case .refused = machine.addInput({ nil }),
            case .refused = machine.addCondition(isComposition: true),
            case .refused = machine.removeDependency(
                Procedure(name: "other"))
        else { return unexpected("late configuration accepted") }
        #expect(machine.exclusivityCategories.isEmpty && !machine.flags[.hasComposedConditions])
    }

    @Test("a second queue cannot claim a procedure, and neither can one once it has started")
    func claims() {
        var machine = ProcedureLifecycle()
        _ = machine.claim(by: queue)
        guard case .onQueue(let owner) = machine.claim(by: ProcedureQueue()) else { return unexpected("claimed twice") }
        #expect(owner === queue)
        var finished = machine
        _ = finished.enqueued(hasConditions: false, mayEvaluateOnWorker: true)
        _ = finished.startExecuting()
        _ = finished.finish(error: nil)
        guard case .started(.finished) = finished.claim(by: queue) else { return unexpected("finished one claimed") }
    }

    @Test("plain conditions: the worker evaluates them, and passing moves straight to executing")
    func conditionsOnWorker() {
        var machine = ProcedureLifecycle()
        guard case .readyToEvaluateOnWorker = enqueued(&machine, conditions: true) else {
            return unexpected("plain conditions not left to the worker")
        }
        #expect(machine.state == .evaluatingConditions)
        guard case .execute = machine.conditionsPassedOnWorker() else { return unexpected("did not start") }
        #expect(machine.state == .executing)
        #expect(machine.flags[.hasConditionResults])
    }

    @Test("conditions on a suspended queue, or composed ones, are evaluated before the procedure is ready")
    func conditionsNotOnWorker() {
        var suspended = ProcedureLifecycle()
        _ = suspended.claim(by: queue)
        guard case .proceed = suspended.enqueued(hasConditions: true, mayEvaluateOnWorker: false) else {
            return unexpected("evaluated on a worker of a suspended queue")
        }
        var composed = ProcedureLifecycle()
        _ = composed.addCondition(isComposition: true)
        guard case .proceed = enqueued(&composed, conditions: true) else {
            return unexpected("composition left to the worker")
        }
        #expect(composed.flags[.defersReadyPush])
    }

    @Test("failed conditions publish their results once; a late answer after cancelling changes nothing")
    func conditionsFailed() {
        var machine = evaluatingAfterDependency()
        guard case .cancel = machine.conditionsFailed(results: [], in: nil) else { return unexpected("not failed") }
        #expect(machine.flags[.hasConditionResults])
        _ = machine.cancel(error: nil)
        _ = machine.finishWithoutExecuting(error: nil)
        guard case .stale = machine.conditionsFailed(results: [], in: nil) else {
            return unexpected("a late failure acted")
        }
        guard case .stale = machine.conditionsPassed(results: [], in: nil) else {
            return unexpected("a finished procedure became ready")
        }
    }

    @Test("a procedure cancelled while its queue batches is finished by its cancel, not pushed with the batch")
    func cancelledDuringDeferral() {
        var machine = ProcedureLifecycle()
        _ = machine.addExclusivityCategory("printer")
        guard case .proceed = enqueued(&machine) else { return unexpected("exclusivity not waited for") }
        _ = machine.beginEvaluation()
        guard case .acquireExclusivity(let categories, _) = machine.conditionsPassed(results: nil, in: nil) else {
            return unexpected("no lease asked for")
        }
        let lease = ExclusivityLease(categories: categories, scope: .root) { _ in }
        _ = machine.leaseCreated(lease)
        guard case .deferred = machine.exclusivityGranted(lease) else { return unexpected("pushed alone") }
        guard case .cancelled = machine.cancel(error: nil) else { return unexpected("cancel ignored") }
        #expect(machine.state == .ready && machine.isCancelled)
        guard case .nothing = machine.endEnqueueing() else {
            return unexpected("a cancelled procedure was pushed with the batch")
        }
        guard case .finishing(let transition) = machine.finishWithoutExecuting(error: nil) else {
            return unexpected("not finishing")
        }
        #expect(transition.lease === lease, "the held lease is handed back by finishing")
        #expect(machine.state == .finished && machine.isCancelled, "finished keeps the cancelled mark")
    }

    @Test("the evaluation lives in its phase: handed to finishing when cancelled, dropped once decided")
    func evaluationPayload() {
        var machine = evaluatingAfterDependency()
        let procedure = Procedure(name: "owner")
        let evaluation = ConditionEvaluation(
            procedure: procedure, tree: ConditionTree(conditions: [], containsCompositions: false),
            runsDependencies: false
        ) { _, _ in }
        guard case .start = machine.evaluationStarted(evaluation) else { return unexpected("evaluation refused") }
        _ = machine.cancel(error: nil)
        guard case .finishing(let transition) = machine.finishWithoutExecuting(error: nil) else {
            return unexpected("not finishing")
        }
        #expect(transition.evaluation === evaluation, "the evaluation is handed over to be cancelled")
        guard case .discard = machine.evaluationStarted(evaluation) else {
            return unexpected("an evaluation kept after finishing")
        }
    }

    @Test("26: exclusivity: a lease is taken after conditions, a stale grant is refused, readiness waits for the batch")
    func exclusivity() {
        var machine = ProcedureLifecycle()
        guard case .accepted = machine.addExclusivityCategory("printer"),
            case .accepted = machine.addExclusivityCategory("printer")
        else { return unexpected("category refused") }
        #expect(machine.exclusivityCategories == ["printer"], "a category counts once")
        guard case .proceed = enqueued(&machine) else { return unexpected("exclusivity not waited for") }
        _ = machine.beginEvaluation()
        guard case .acquireExclusivity(let categories, _) = machine.conditionsPassed(results: nil, in: nil) else {
            return unexpected("no lease asked for")
        }
        #expect(categories == ["printer"])
        #expect(machine.state == .waitingForExclusivity)
        let lease = ExclusivityLease(categories: categories, scope: .root) { _ in }
        let stale = ExclusivityLease(categories: categories, scope: .root) { _ in }
        guard case .acquire = machine.leaseCreated(lease) else { return unexpected("lease refused") }
        guard case .stale = machine.exclusivityGranted(stale) else { return unexpected("a stale lease was taken") }
        guard case .deferred = machine.exclusivityGranted(lease) else {
            return unexpected("ready pushed alone while the queue batches")
        }
        guard case .pushWithBatch = machine.endEnqueueing() else {
            return unexpected("the queue did not learn to push it with its batch")
        }
        #expect(!machine.flags[.defersReadyPush])
        guard case .execute = machine.startExecuting() else { return unexpected("did not start") }
        #expect(machine.phase.lease === lease, "the lease is held while executing")
        guard case .finishing(let transition) = machine.finish(error: nil) else {
            return unexpected("a held lease was not handed over")
        }
        #expect(transition.lease === lease)
        #expect(machine.phase.lease == nil)
    }

    @Test("with observers, finishing is two steps: will-finish is told before anything is let go")
    func finishWithObservers() {
        var machine = ProcedureLifecycle()
        _ = machine.addObserver(LoggingObserver(log: EventLog()))
        _ = enqueued(&machine)
        _ = machine.startExecuting()
        guard case .finishing(let transition) = machine.finish(error: TestError("failed")) else {
            return unexpected("finished without telling observers")
        }
        #expect(transition.wasExecuting)
        #expect(transition.finished == nil)
        #expect(transition.observers.count == 1)
        #expect(machine.state == .finishing)
        guard case .ignored = machine.cancel(error: nil) else {
            return unexpected("a finishing procedure was cancelled")
        }
        let parts = machine.takeForFinished()
        #expect(parts.observers.count == 1 && parts.queue === queue)
        #expect(machine.state == .finished && machine.observers.isEmpty)
        guard case .tellFinished(let error) = machine.addObserver(LoggingObserver(log: EventLog())) else {
            return unexpected("a late observer was kept instead of told at once")
        }
        #expect((error as? TestError) == TestError("failed"))
    }

    // MARK: Every order

    /// The events other threads may send at any time, as their callers send them.
    enum Event: CaseIterable {
        case cancel, finish, finishWithoutExecuting, dependencyFinished, beginEvaluation, conditionsPassed
        case conditionsFailed, conditionsPassedOnWorker, startExecuting, exclusivityGranted
    }

    /// One machine and what its caller has learnt from the actions so far.
    struct Run {
        var machine = ProcedureLifecycle()
        var finishes = 0
        var executions = 0
        var undeliveredDependencies = 0
        var lease: ExclusivityLease?
        var leaseHandovers = 0
        var failures: [String] = []

        /// Carries out a finishing transition as `Procedure.complete` does.
        mutating func complete(_ transition: ProcedureLifecycle.FinishTransition) {
            if let lease, transition.lease === lease { leaseHandovers += 1 }
            if transition.finished != nil {
                finishes += 1
            } else {
                // Will-finish observers are told, then the rest is taken.
                _ = machine.takeForFinished()
                finishes += 1
            }
        }

        mutating func send(_ event: Event, queue: ProcedureQueue) {
            let before = machine.state
            let wasCancelled = machine.isCancelled
            switch event {
            case .cancel:
                _ = machine.cancel(error: nil)
            case .finish:
                switch machine.finish(error: nil) {
                case .finished: finishes += 1
                case .finishing(let transition): complete(transition)
                case .refused: break
                }
            case .finishWithoutExecuting:
                if case .finishing(let transition) = machine.finishWithoutExecuting(error: nil) { complete(transition) }
            case .dependencyFinished:
                // A dependency reports once, and only one that was added.
                guard undeliveredDependencies > 0 else { break }
                undeliveredDependencies -= 1
                _ = machine.dependencyFinished()
            case .beginEvaluation:
                _ = machine.beginEvaluation()
            case .conditionsPassed:
                if case .acquireExclusivity(let categories, _) = machine.conditionsPassed(results: nil, in: nil) {
                    if categories.isEmpty { failures.append("a lease asked for no category") }
                    let lease = ExclusivityLease(categories: categories, scope: .root) { _ in }
                    if case .acquire = machine.leaseCreated(lease) { self.lease = lease }
                }
            case .conditionsFailed:
                _ = machine.conditionsFailed(results: [], in: nil)
            case .conditionsPassedOnWorker:
                if case .execute = machine.conditionsPassedOnWorker() { executions += 1 }
            case .startExecuting:
                if case .execute = machine.startExecuting() { executions += 1 }
            case .exclusivityGranted:
                // A stale grant is released by the caller; only finishing hands a held lease back.
                if let lease { _ = machine.exclusivityGranted(lease) }
            }
            if machine.state < before {
                failures.append("\(event): the state moved back from \(before) to \(machine.state)")
            }
            if wasCancelled, !machine.isCancelled {
                failures.append("\(event): the cancelled mark was lost moving from \(before) to \(machine.state)")
            }
            if machine.state == .executing, before != .executing {
                if wasCancelled { failures.append("\(event): a cancelled procedure started executing") }
            }
            if machine.state == .finished {
                if !(machine.queue == nil && machine.observers.isEmpty && machine.dependents.isEmpty
                    && machine.dependencies.isEmpty && machine.phase.lease == nil)
                {
                    failures.append("\(event): a finished procedure still holds something")
                }
            }
        }
    }

    /// Every setup a procedure can be enqueued with, at small bounds.
    struct Setup: CustomStringConvertible {
        var dependencies: Int
        var exclusivity: Bool
        var conditions: Bool
        var observer: Bool

        static let all: [Setup] = [0, 1].flatMap { dependencies in
            [false, true].flatMap { exclusivity in
                [false, true].flatMap { conditions in
                    [false, true].map {
                        Setup(
                            dependencies: dependencies, exclusivity: exclusivity, conditions: conditions, observer: $0)
                    }
                }
            }
        }

        var description: String {
            "dependencies \(dependencies), exclusivity \(exclusivity), conditions \(conditions), observer \(observer)"
        }
    }

    /// Two sets of eight events, each in all 40,320 orders, after each of 16 setups: the
    /// invariants hold after every event of every order (645,120 runs per set).
    @Test(
        "events in every order: states only move forward, a cancelled procedure never executes, it finishes once, a lease is handed back once",
        arguments: [
            [
                Event.cancel, .dependencyFinished, .beginEvaluation, .conditionsPassed, .exclusivityGranted,
                .startExecuting, .finish, .finishWithoutExecuting,
            ],
            [
                Event.cancel, .dependencyFinished, .beginEvaluation, .conditionsFailed, .conditionsPassedOnWorker,
                .startExecuting, .finishWithoutExecuting, .finish,
            ],
        ])
    func everyOrder(events: [Event]) {
        let orders = permutations(events)
        var failures: [String: Int] = [:]
        for setup in Setup.all {
            for order in orders {
                var run = Run()
                for index in 0..<setup.dependencies {
                    _ = run.machine.addDependency(Procedure(name: "dependency \(index)"))
                }
                run.undeliveredDependencies = setup.dependencies
                if setup.exclusivity { _ = run.machine.addExclusivityCategory("category") }
                if setup.observer { _ = run.machine.addObserver(LoggingObserver(log: EventLog())) }
                _ = run.machine.claim(by: queue)
                switch run.machine.enqueued(hasConditions: setup.conditions, mayEvaluateOnWorker: true) {
                case .proceed: _ = run.machine.endEnqueueing()
                default: break
                }
                for event in order { run.send(event, queue: queue) }
                if run.finishes > 1 { run.failures.append("finished \(run.finishes) times") }
                if run.executions > 1 { run.failures.append("executed \(run.executions) times") }
                if run.leaseHandovers > 1 {
                    run.failures.append("the lease was handed back \(run.leaseHandovers) times")
                }
                if run.machine.state == .finished, run.lease != nil {
                    if run.leaseHandovers != 1 { run.failures.append("a finished procedure kept its lease") }
                }
                for failure in run.failures { failures["\(setup): \(failure)", default: 0] += 1 }
            }
        }
        #expect(failures.isEmpty, "\(failures.sorted { $0.key < $1.key }.prefix(10))")
    }

    @Test(
        "events in any order, with repeats: the same invariants over long random sequences",
        arguments: [UInt64(0x11FE_0001), 0x11FE_0002, 0x11FE_0003, 0x11FE_0004])
    func anyOrder(seed: UInt64) {
        var generator = SplitMix(seed: seed)
        var failures: [String] = []
        for _ in 0..<2_000 {
            let setup = Setup.all.randomElement(using: &generator)!
            var run = Run()
            for index in 0..<setup.dependencies {
                _ = run.machine.addDependency(Procedure(name: "dependency \(index)"))
            }
            run.undeliveredDependencies = setup.dependencies
            if setup.exclusivity { _ = run.machine.addExclusivityCategory("category") }
            _ = run.machine.claim(by: queue)
            if case .proceed = run.machine.enqueued(hasConditions: setup.conditions, mayEvaluateOnWorker: true) {
                _ = run.machine.beginEvaluation()
            }
            for _ in 0..<12 { run.send(Event.allCases.randomElement(using: &generator)!, queue: queue) }
            if run.finishes > 1 { run.failures.append("finished \(run.finishes) times") }
            if run.executions > 1 { run.failures.append("executed \(run.executions) times") }
            failures += run.failures
        }
        #expect(failures.isEmpty, "\(failures.prefix(10))")
    }
}
