import TestSupport
import Testing

@testable import ProcedureCore

/// Semantics rules 28, 29 and 33 (timeout observer).
@Suite(.timeLimit(.minutes(2)))
struct ObserverTests {
    @Test("28: each event once, in order, never under a lock (observers may read the procedure)")
    func eventsOnceOutsideLocks() async {
        let log = EventLog()
        let procedure = BlockProcedure(name: "p") {}
        procedure.addCondition(ScriptedCondition("auth", answer: .needsInteraction, interactive: true))
        procedure.addObserver(LoggingObserver(log: log))
        // Reading state inside every callback would deadlock if a lock were held.
        procedure.addObserver(
            BlockObserver(
                willExecute: { _ = $0.state }, didCancel: { p, _ in _ = p.state },
                didProduce: { p, _ in _ = p.state }, willFinish: { p, _ in _ = p.state },
                didFinish: { p, _ in _ = p.isCancelled }))
        await run(procedure)
        #expect(log.all == ["didProduce p", "willExecute p", "willFinish p", "didFinish p"])
    }

    @Test("28: a cancelled procedure's observers hear did-cancel once, however often it is cancelled")
    func didCancelOnce() async {
        let log = EventLog()
        let procedure = ManualProcedure(name: "p")
        procedure.addObserver(LoggingObserver(log: log))
        let queue = ProcedureQueue()
        queue.addProcedure(procedure)
        await procedure.started.wait()
        procedure.cancel()
        procedure.cancel()
        procedure.finish()
        await procedure.waitUntilFinished()
        #expect(log.count(of: "didCancel p") == 1)
        #expect(log.count(of: "didFinish p") == 1)
    }

    @Test("28: the single-event observers hear their event once")
    func singleEventObservers() async {
        let log = EventLog()
        let procedure = BlockProcedure(name: "p") { throw TestError("boom") }
        procedure.addWillExecuteBlockObserver { log.record("will execute \($0.name)") }
        procedure.addDidFinishBlockObserver { _, error in log.record("did finish \(String(describing: error))") }
        let cancelled = BlockProcedure(name: "c") {}
        cancelled.addDidCancelBlockObserver { procedure, _ in log.record("did cancel \(procedure.name)") }
        cancelled.cancel()
        cancelled.cancel()
        await run(procedure)
        await run(cancelled)
        #expect(log.all == ["did cancel c", "will execute p", "did finish Optional(boom)"])
    }

    @Test("a removed observer hears nothing more; the others still do")
    func removableObservers() async {
        let log = EventLog()
        let gate = Latch()
        let procedure = AsyncProcedure(name: "p") { await gate.wait() }
        let registration = procedure.addRemovableObserver(
            BlockObserver(
                willExecute: { _ in log.record("removable will execute") },
                didFinish: { _, _ in log.record("removable did finish") }))
        procedure.addDidFinishBlockObserver { _, _ in log.record("kept did finish") }
        procedure.addWillExecuteBlockObserver { _ in
            registration.remove()
            gate.open()
        }
        await run(procedure)
        #expect(registration.isRemoved)
        #expect(log.all == ["removable will execute", "kept did finish"])
    }

    @Test("29: an observer added after finish still hears did-finish, with the error")
    func lateObserver() async {
        let procedure = BlockProcedure(name: "p") { throw TestError("late") }
        await run(procedure)
        let heard = EventLog()
        procedure.addObserver(
            BlockObserver(didFinish: { p, error in heard.record("\(p.name) \(error.map { "\($0)" } ?? "-")") }))
        #expect(heard.all == ["p late"])
    }

    @Test("33: a timeout observer cancels a procedure that runs past its limit, with a timeout error")
    func timeout() async {
        let procedure = ManualProcedure(name: "slow")
        procedure.addObserver(TimeoutObserver(limit: .milliseconds(20)))
        let queue = ProcedureQueue()
        queue.addProcedure(procedure)
        await procedure.cancelled.wait()
        procedure.finish()
        await procedure.waitUntilFinished()
        #expect(procedure.isCancelled)
        guard let error = procedure.error as? ProcedureError, error.code == .timedOut, let limit = error.limit else {
            Issue.record("expected a timeout, got \(String(describing: procedure.error))")
            return
        }
        #expect(limit == .milliseconds(20))
    }

    @Test(
        "33: deadlines: a timeout whose deadline has passed cancels at once; a delay until a past instant does not wait"
    )
    func deadlines() async {
        let procedure = ManualProcedure(name: "late")
        procedure.addObserver(TimeoutObserver(deadline: .now - .seconds(1)))
        let queue = ProcedureQueue()
        queue.addProcedure(procedure)
        await procedure.cancelled.wait()
        procedure.finish()
        await procedure.waitUntilFinished()
        #expect((procedure.error as? ProcedureError)?.code == .timedOut)
        let delay = DelayProcedure(until: .now - .seconds(1))
        #expect(delay.deadline != nil && delay.delay < .zero)
        await run(delay)
        #expect(delay.isFinished && delay.error == nil)
        // A deadline far ahead neither cancels nor ends early: the procedure finishes by itself.
        let patient = BlockProcedure(name: "patient") {}
        patient.addObserver(TimeoutObserver(deadline: .now + .seconds(3600)))
        await run(patient)
        #expect(!patient.isCancelled)
    }

    @Test("33: a procedure that finishes in time is not cancelled by its timeout")
    func noTimeoutWhenFast() async {
        let procedure = BlockProcedure {}
        procedure.addObserver(TimeoutObserver(limit: .seconds(3600)))
        await run(procedure)
        #expect(!procedure.isCancelled)
    }
}
