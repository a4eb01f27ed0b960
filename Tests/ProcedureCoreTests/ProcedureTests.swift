import Dispatch
import TestSupport
import Testing

@testable import ProcedureCore

/// Semantics rules 1 to 7: the operation lifecycle.
@Suite(.timeLimit(.minutes(2)))
struct ProcedureTests {
    @Test("addDependencies waits for each; dependents run after a failed dependency unless they say otherwise")
    func dependenciesAndFailures() async {
        let log = EventLog()
        let failing = BlockProcedure(name: "failing") {
            log.record("failing")
            throw TestError()
        }
        let other = BlockProcedure(name: "other") { log.record("other") }
        let tolerant = BlockProcedure(name: "tolerant") { log.record("tolerant") }
        tolerant.addDependencies([failing, other, failing])
        let strict = BlockProcedure(name: "strict") { log.record("strict") }
        strict.addDependencies([failing, other])
        strict.addCondition(NoFailedDependencies())
        #expect(tolerant.dependencies.count == 2, "a dependency added twice counts once")
        let queue = ProcedureQueue()
        queue.addProcedures([tolerant, strict, failing, other])
        await queue.waitUntilAllFinished()
        #expect(log.all.contains("tolerant"), "Semantics rule 2: waiting is all a dependency does")
        #expect(log.all.firstIndex(of: "tolerant")! > log.all.firstIndex(of: "failing")!)
        #expect(log.all.firstIndex(of: "tolerant")! > log.all.firstIndex(of: "other")!)
        #expect(!log.all.contains("strict"))
        #expect(strict.isCancelled)
    }

    @Test("1: states move forward to finished; a second finish or cancel is ignored")
    func statesMoveForward() async {
        let states = EventLog()
        let procedure = ManualProcedure(name: "p")
        #expect(procedure.state == .initialized)
        procedure.addObserver(
            BlockObserver(
                willExecute: { states.record("\($0.state)") },
                willFinish: { procedure, _ in states.record("\(procedure.state)") },
                didFinish: { procedure, _ in states.record("\(procedure.state)") }))
        let queue = ProcedureQueue()
        queue.addProcedure(procedure)
        await procedure.started.wait()
        #expect(procedure.state == .executing)
        procedure.finish(with: TestError("first"))
        await procedure.waitUntilFinished()
        procedure.finish(with: TestError("second"))
        procedure.cancel(with: TestError("third"))
        #expect(procedure.state == .finished)
        #expect(!procedure.isCancelled)
        #expect((procedure.error as? TestError)?.message == "first")
        #expect(states.all == ["executing", "finishing", "finished"])
    }

    @Test("2: a procedure runs only after its dependencies, across queues")
    func dependenciesAcrossQueues() async {
        let log = EventLog()
        let first = BlockProcedure(name: "first") { log.record("first") }
        let second = BlockProcedure(name: "second") { log.record("second") }
        let third = BlockProcedure(name: "third") { log.record("third") }
        third.addDependency(second)
        second.addDependency(first)
        let queueA = ProcedureQueue()
        let queueB = ProcedureQueue()
        queueA.addProcedure(third)
        queueB.addProcedure(second)
        queueA.addProcedure(first)
        await third.waitUntilFinished()
        #expect(log.all == ["first", "second", "third"])
    }

    @Test("2: a procedure with thousands of dependencies waits for all; a repeated dependency counts once")
    func manyDependencies() async {
        let finished = Counter()
        let dependencies = (0..<5_000).map { _ in BlockProcedure { finished.increment() } }
        let sawAll = Counter()
        let barrier = BlockProcedure { if finished.count == 5_000 { sawAll.increment() } }
        for dependency in dependencies { barrier.addDependency(dependency) }
        for dependency in dependencies.prefix(100) { barrier.addDependency(dependency) }
        barrier.removeDependency(dependencies[4_999])
        barrier.addDependency(dependencies[4_999])
        #expect(barrier.dependencies.count == 5_000)
        let queue = ProcedureQueue()
        queue.addProcedure(barrier)
        queue.addProcedures(dependencies)
        await barrier.waitUntilFinished()
        #expect(sawAll.count == 1)
    }

    @Test("3: failing is not cancelling; cancelling with an error is both; the first error wins")
    func errorsAndCancellation() async {
        let failed = BlockProcedure { throw TestError("boom") }
        await run(failed)
        #expect(failed.error as? TestError == TestError("boom"))
        #expect(!failed.isCancelled)

        let cancelled = ManualProcedure()
        cancelled.cancel()
        await run(cancelled)
        #expect(cancelled.isCancelled)
        #expect(cancelled.error == nil)

        let both = ManualProcedure()
        let queue = ProcedureQueue()
        queue.addProcedure(both)
        await both.started.wait()
        both.cancel(with: TestError("cancel reason"))
        both.finish(with: TestError("later"))
        await both.waitUntilFinished()
        #expect(both.isCancelled)
        #expect(both.error as? TestError == TestError("cancel reason"))
    }

    @Test("4: cancelled before start: never executes, observers hear did-cancel then did-finish, queue drains")
    func cancelledBeforeStart() async {
        let log = EventLog()
        let executed = Counter()
        let procedure = BlockProcedure(name: "p") { executed.increment() }
        procedure.addObserver(LoggingObserver(log: log))
        procedure.cancel()
        let queue = ProcedureQueue()
        queue.addProcedure(procedure)
        await queue.waitUntilAllFinished()
        #expect(executed.count == 0)
        #expect(procedure.isFinished && procedure.isCancelled)
        #expect(log.all == ["didCancel p", "willFinish p", "didFinish p"])
        #expect(queue.unfinishedCount == 0)
    }

    @Test("4: cancelled while waiting for a dependency: finishes promptly without executing")
    func cancelledWhileWaiting() async {
        let blocker = ManualProcedure(name: "blocker")
        let executed = Counter()
        let waiting = BlockProcedure(name: "waiting") { executed.increment() }
        waiting.addDependency(blocker)
        let queue = ProcedureQueue()
        queue.addProcedures([blocker, waiting])
        await blocker.started.wait()
        waiting.cancel()
        await waiting.waitUntilFinished()
        #expect(executed.count == 0)
        #expect(blocker.state == .executing)
        blocker.finish()
        await queue.waitUntilAllFinished()
    }

    @Test("4: a worker taking a procedure whose cancel has begun neither evaluates its conditions nor starts it")
    func cancelRacingTheWorkersEvaluation() async {
        let evaluations = Counter()
        let (gated, _) = await cancelWhileTheWorkerTakesIt { procedure in
            procedure.addCondition(
                BlockCondition(name: "counted") { _ in
                    evaluations.increment()
                    return true
                })
        }
        #expect(evaluations.count == 0)
        #expect(gated.executions.count == 0)
        #expect(gated.isFinished && gated.isCancelled)
    }

    @Test("4: a worker taking a procedure whose cancel has begun does not start it")
    func cancelRacingTheWorker() async {
        let (racing, next) = await cancelWhileTheWorkerTakesIt { _ in }
        #expect(racing.executions.count == 0)
        #expect(racing.isFinished && racing.isCancelled)
        #expect(next.isFinished && !next.isCancelled)
    }

    /// Cancels a procedure waiting behind a blocker on a one-slot queue, and keeps the cancel in
    /// `didCancel` (marked cancelled, not yet finished) until the worker has taken the procedure
    /// and the one after it. Returns both once the queue is empty.
    private func cancelWhileTheWorkerTakesIt(
        _ configure: (CancelPausingProcedure) -> Void
    ) async -> (racing: CancelPausingProcedure, next: Procedure) {
        let queue = ProcedureQueue(maxConcurrentCount: 1)
        let blocker = ManualProcedure(name: "blocker")
        queue.addProcedure(blocker)
        await blocker.started.wait()
        let workerPassed = DispatchSemaphore(value: 0)
        let racing = CancelPausingProcedure(name: "racing") {
            blocker.finish()
            workerPassed.wait()
        }
        configure(racing)
        let next = BlockProcedure(name: "next") { workerPassed.signal() }
        queue.addProcedures([racing, next])
        let cancelled = Latch()
        DispatchQueue.global().async {
            racing.cancel()
            cancelled.open()
        }
        await cancelled.wait()
        await queue.waitUntilAllFinished()
        return (racing, next)
    }

    @Test("5: cancelling a running async body is cooperative and cancels its task")
    func cooperativeAsyncCancellation() async {
        let entered = Latch()
        let sawCancellation = Latch()
        let procedure = AsyncProcedure<Int>(name: "async") {
            entered.open()
            // Wait until cancelled: a stream that ends only on task cancellation.
            let stream = AsyncStream<Int> { _ in }
            for await _ in stream {}
            if Task.isCancelled { sawCancellation.open() }
            throw CancellationError()
        }
        let queue = ProcedureQueue()
        queue.addProcedure(procedure)
        await entered.wait()
        procedure.cancel()
        #expect(procedure.isCancelled)
        await procedure.waitUntilFinished()
        #expect(sawCancellation.isOpen)
        #expect(procedure.error == nil)
        await #expect(throws: ProcedureError.self) { try await procedure.value() }
    }

    @Test("5: an async body's result is awaited with value()")
    func asyncValue() async throws {
        let procedure = AsyncProcedure { 6 * 7 }
        ProcedureQueue().addProcedure(procedure)
        #expect(try await procedure.value() == 42)
        let failing = AsyncProcedure<Int> { throw TestError("no") }
        ProcedureQueue().addProcedure(failing)
        await #expect(throws: TestError("no")) { try await failing.value() }
    }

    @Test("6: calling the work body yourself does not run the procedure")
    func executeIsNotRun() async {
        let ran = Counter()
        let procedure = BlockProcedure { ran.increment() }
        procedure.execute()
        procedure.finish()
        #expect(ran.count == 0)
        #expect(procedure.state == .initialized)
        await run(procedure)
        #expect(ran.count == 1)
        procedure.execute()
        #expect(ran.count == 1)
    }

    @Test("7: finished procedures release dependencies, observers and bodies")
    func releasesWhatItHolds() async {
        let released = Counter()
        let allReleased = Latch()
        let captured = Counter()
        do {
            let queue = ProcedureQueue()
            var previous: Procedure?
            var all: [Procedure] = []
            for index in 0..<1_000 {
                let procedure = CountedProcedure(
                    name: "p\(index)", released: released, whenReleased: (1_000, allReleased))
                if let previous { procedure.addDependency(previous) }
                procedure.addObserver(BlockObserver(didFinish: { _, _ in captured.increment() }))
                all.append(procedure)
                previous = procedure
            }
            previous = nil
            queue.addProcedures(all)
            await queue.waitUntilAllFinished()
            #expect(all.allSatisfy { $0.dependencies.isEmpty && $0.isFinished })
            all = []
        }
        #expect(captured.count == 1_000)
        // The worker that ran the last one may hold it a moment after the queue reports it finished;
        // a procedure that is never released leaves this waiting until the suite's time limit.
        await allReleased.wait()
        #expect(released.count == 1_000)
    }

    @Test("7: a block procedure lets go of its closure once finished")
    func releasesClosure() async {
        final class Token: Sendable {
            let released: Counter
            init(_ released: Counter) { self.released = released }
            deinit { released.increment() }
        }
        let released = Counter()
        let procedure: BlockProcedure
        do {
            let token = Token(released)
            procedure = BlockProcedure { _ = token }
        }
        #expect(released.count == 0)
        await run(procedure)
        #expect(released.count == 1)
    }
}
