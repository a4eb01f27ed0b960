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

    @Test("1: nothing to wait for: ready, executing, then finished in one step that hands over dependents and queue")
    func commonPath() {
        var machine = ProcedureLifecycle()
        let dependent = Procedure(name: "dependent")
        machine.dependents.append(dependent)
        guard case .ready = enqueued(&machine) else { return unexpected("not ready at once") }
        #expect(machine.state == .ready)
        let observers = machine.startExecuting()
        #expect(observers != nil)
        #expect(machine.state == .executing)
        guard case .finished(let owner, let dependents, let error) = machine.finish(error: TestError("done")) else {
            return unexpected("no one-step finish without observers")
        }
        #expect(owner === queue)
        #expect(dependents.array.map(ObjectIdentifier.init) == [ObjectIdentifier(dependent)])
        #expect((error as? TestError) == TestError("done"))
        #expect(machine.state == .finished)
        #expect(machine.queue == nil && machine.dependents.isEmpty, "a finished procedure lets go")
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
        let cancellation = machine.cancel(error: nil)
        #expect(cancellation == nil, "cancelling a finished procedure does nothing")
    }

    @Test(
        "4: cancelling finishes at once only a procedure on a queue that has not started",
        arguments: [
            (ProcedureState.initialized, false), (.pending, true), (.evaluatingConditions, true),
            (.waitingForExclusivity, true), (.ready, true), (.executing, false),
        ])
    func cancelInPhase(phase: ProcedureState, finishesNow: Bool) {
        var machine = ProcedureLifecycle()
        machine.state = phase
        let cancellation = machine.cancel(error: TestError("first"))
        #expect(cancellation?.phase == phase)
        #expect(cancellation?.finishesNow == finishesNow)
        #expect(machine.isCancelled)
        let secondCancellation = machine.cancel(error: TestError("second"))
        #expect(secondCancellation == nil, "a second cancel is ignored")
        #expect((machine.error as? TestError) == TestError("first"), "the first error wins")
        // A cancelled procedure never starts, whichever way it would have.
        let started = machine.startExecuting()
        let startedOnWorker = machine.conditionsPassedOnWorker()
        let evaluation = machine.beginEvaluation()
        #expect(started == nil && startedOnWorker == nil && evaluation == nil)
        #expect(machine.state == phase)
    }

    @Test("4: a procedure cancelled before it is enqueued finishes without executing when it is")
    func cancelledBeforeEnqueue() {
        var machine = ProcedureLifecycle()
        _ = machine.cancel(error: nil)
        guard case .finishWithoutExecuting = enqueued(&machine) else { return unexpected("would run") }
        let transition = machine.finishWithoutExecuting(error: nil)
        #expect(transition?.wasExecuting == false)
        #expect(transition?.finished != nil, "no observers: finished in the same step")
        #expect(machine.state == .finished)
        let again = machine.finishWithoutExecuting(error: nil)
        #expect(again == nil, "finishing twice does nothing")
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
        let firstWasLast = machine.dependencyFinished()
        let secondWasLast = machine.dependencyFinished()
        #expect(!firstWasLast && secondWasLast)
        let start = machine.beginEvaluation()
        #expect(start != nil)
        #expect(machine.state == .evaluatingConditions)
        let secondStart = machine.beginEvaluation()
        #expect(secondStart == nil, "an evaluation begins once")
        guard case .ready(let owner) = machine.conditionsPassed(results: nil, in: nil) else {
            return unexpected("not ready after conditions")
        }
        #expect(owner === queue)
    }

    @Test("2: a procedure on a dependency cycle never begins its evaluation")
    func cycle() {
        var machine = ProcedureLifecycle()
        _ = machine.addDependency(Procedure(name: "loop"))
        _ = enqueued(&machine)
        machine.flags[.isOnDependencyCycle] = true
        let wasLast = machine.dependencyFinished()
        #expect(wasLast == true)
        let start = machine.beginEvaluation()
        #expect(start == nil)
        let transition = machine.finishWithoutExecuting(error: nil)
        #expect(transition != nil)
    }

    @Test("configuration is refused once the procedure is on a queue")
    func configurationAfterEnqueue() {
        var machine = ProcedureLifecycle()
        #expect(machine.acceptsConfiguration)
        _ = enqueued(&machine)
        #expect(!machine.acceptsConfiguration)
        guard case .refused = machine.addDependency(Procedure(name: "late")) else {
            return unexpected("a late dependency was accepted")
        }
        let accepted = machine.addExclusivityCategory("late")
        #expect(!accepted)
        let removed = machine.removeDependency(Procedure(name: "other"))
        #expect(!removed)
    }

    @Test("a second queue cannot claim a procedure, and neither can one once it has started")
    func claims() {
        var machine = ProcedureLifecycle()
        _ = machine.claim(by: queue)
        guard case .onQueue(let owner) = machine.claim(by: ProcedureQueue()) else { return unexpected("claimed twice") }
        #expect(owner === queue)
        var started = ProcedureLifecycle()
        started.state = .finished
        guard case .started(.finished) = started.claim(by: queue) else { return unexpected("finished one claimed") }
    }

    @Test("plain conditions: the worker evaluates them, and passing moves straight to executing")
    func conditionsOnWorker() {
        var machine = ProcedureLifecycle()
        guard case .readyToEvaluateOnWorker = enqueued(&machine, conditions: true) else {
            return unexpected("plain conditions not left to the worker")
        }
        #expect(machine.state == .evaluatingConditions)
        let observers = machine.conditionsPassedOnWorker()
        #expect(observers != nil)
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
        composed.conditionAdded(isComposition: true)
        guard case .proceed = enqueued(&composed, conditions: true) else {
            return unexpected("composition left to the worker")
        }
        #expect(composed.flags[.defersReadyPush])
    }

    @Test("failed conditions publish their results once; a late answer after cancelling changes nothing")
    func conditionsFailed() {
        var machine = ProcedureLifecycle()
        _ = machine.addDependency(Procedure(name: "before"))
        _ = enqueued(&machine)
        _ = machine.dependencyFinished()
        _ = machine.beginEvaluation()
        let failed = machine.conditionsFailed(results: [], in: nil)
        #expect(failed)
        #expect(machine.flags[.hasConditionResults])
        _ = machine.cancel(error: nil)
        _ = machine.finishWithoutExecuting(error: nil)
        let lateFailure = machine.conditionsFailed(results: [], in: nil)
        #expect(lateFailure == false)
        guard case .none = machine.conditionsPassed(results: [], in: nil) else {
            return unexpected("a finished procedure became ready")
        }
    }

    @Test("26: exclusivity: a lease is taken after conditions, a stale grant is refused, readiness waits for the batch")
    func exclusivity() {
        var machine = ProcedureLifecycle()
        let accepted = machine.addExclusivityCategory("printer")
        let acceptedAgain = machine.addExclusivityCategory("printer")
        #expect(accepted && acceptedAgain)
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
        let waiting = machine.leaseCreated(lease)
        #expect(waiting)
        guard case .none = machine.exclusivityGranted(stale) else { return unexpected("a stale lease was taken") }
        guard case .deferred = machine.exclusivityGranted(lease) else {
            return unexpected("ready pushed alone while the queue batches")
        }
        let deferred = machine.endEnqueueing()
        #expect(deferred, "the queue learns to push it with its batch")
        #expect(!machine.flags[.defersReadyPush] && !machine.flags[.hasDeferredReadyPush])
        let observers = machine.startExecuting()
        #expect(observers != nil)
        guard case .finishing(let transition) = machine.finish(error: nil) else {
            return unexpected("a held lease was not handed over")
        }
        #expect(transition.lease === lease)
        #expect(machine.exclusivityLease == nil)
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
        let cancellation = machine.cancel(error: nil)
        #expect(cancellation == nil, "a finishing procedure cannot be cancelled")
        let parts = machine.takeForFinished()
        #expect(parts.observers.count == 1 && parts.queue === queue)
        #expect(machine.state == .finished && machine.observers.isEmpty)
        guard case .some(let error) = machine.addObserver(LoggingObserver(log: EventLog())) else {
            return unexpected("a late observer was kept instead of told at once")
        }
        #expect((error as? TestError) == TestError("failed"))
    }

    /// Every event, with whatever arguments a caller could send.
    enum Event: CaseIterable {
        case cancel, finish, finishWithoutExecuting, dependencyFinished, beginEvaluation, conditionsPassed
        case conditionsFailed, conditionsPassedOnWorker, startExecuting, exclusivityGranted, takeForFinished
    }

    @Test(
        "events in any order: states only move forward, a cancelled procedure never executes, it finishes once",
        arguments: [UInt64(0x11FE_0001), 0x11FE_0002, 0x11FE_0003, 0x11FE_0004])
    func anyOrder(seed: UInt64) {
        var generator = SplitMix(seed: seed)
        for _ in 0..<2_000 {
            var machine = ProcedureLifecycle()
            let dependencies = Int.random(in: 0...2, using: &generator)
            for index in 0..<dependencies { _ = machine.addDependency(Procedure(name: "dependency \(index)")) }
            if Bool.random(using: &generator) { _ = machine.addExclusivityCategory("category") }
            let lease = ExclusivityLease(categories: ["category"], scope: .root) { _ in }
            switch enqueued(&machine, conditions: Bool.random(using: &generator)) {
            case .proceed: _ = machine.beginEvaluation()
            default: break
            }
            var finishes = 0
            var cancelledBeforeExecuting = false
            for _ in 0..<12 {
                let before = machine.state
                let wasCancelled = machine.isCancelled
                switch Event.allCases.randomElement(using: &generator)! {
                case .cancel:
                    if machine.cancel(error: nil) != nil, before < .executing { cancelledBeforeExecuting = true }
                case .finish:
                    switch machine.finish(error: nil) {
                    case .finished: finishes += 1
                    case .finishing(let transition): finishes += transition.finished == nil ? 0 : 1
                    case .refused: break
                    }
                case .finishWithoutExecuting:
                    if let transition = machine.finishWithoutExecuting(error: nil) {
                        finishes += transition.finished == nil ? 0 : 1
                    }
                case .dependencyFinished:
                    if machine.pendingDependencies > 0 { _ = machine.dependencyFinished() }
                case .beginEvaluation: _ = machine.beginEvaluation()
                case .conditionsPassed:
                    if case .acquireExclusivity = machine.conditionsPassed(results: nil, in: nil) {
                        _ = machine.leaseCreated(lease)
                    }
                case .conditionsFailed: _ = machine.conditionsFailed(results: [], in: nil)
                case .conditionsPassedOnWorker: _ = machine.conditionsPassedOnWorker()
                case .startExecuting: _ = machine.startExecuting()
                case .exclusivityGranted: _ = machine.exclusivityGranted(lease)
                case .takeForFinished:
                    // Only the caller of a two-step finish sends this, once.
                    if machine.state == .finishing {
                        _ = machine.takeForFinished()
                        finishes += 1
                    }
                }
                #expect(machine.state >= before, "state moved back from \(before) to \(machine.state)")
                if machine.state == .executing && before != .executing {
                    #expect(!wasCancelled, "a cancelled procedure started executing")
                }
            }
            #expect(finishes <= 1, "finished \(finishes) times")
            if cancelledBeforeExecuting { #expect(machine.state != .executing) }
        }
    }
}
