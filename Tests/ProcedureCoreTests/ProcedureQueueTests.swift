import TestSupport
import Testing

@testable import ProcedureCore

/// The queue: concurrency limit, suspension, cancel all, waiting, observers.
@Suite(.timeLimit(.minutes(2)))
struct ProcedureQueueTests {
    @Test("a queue of width 1 runs one procedure at a time, in order")
    func serialQueue() async {
        let running = Counter()
        let overlaps = Counter()
        let order = EventLog()
        let queue = ProcedureQueue(maxConcurrentCount: 1)
        queue.addProcedures(
            (0..<100).map { index in
                BlockProcedure {
                    if running.increment() > 1 { overlaps.increment() }
                    order.record("\(index)")
                    running.decrement()
                }
            })
        await queue.waitUntilAllFinished()
        #expect(overlaps.count == 0)
        #expect(order.all == (0..<100).map(String.init))
    }

    @Test("the width counts procedures that finish later, not threads")
    func widthCountsExecutingProcedures() async {
        let queue = ProcedureQueue(maxConcurrentCount: 2)
        let first = ManualProcedure(name: "first")
        let second = ManualProcedure(name: "second")
        let third = BlockProcedure(name: "third") {}
        queue.addProcedures([first, second, third])
        await first.started.wait()
        await second.started.wait()
        #expect(third.state == .ready)
        first.finish()
        await third.waitUntilFinished()
        second.finish()
        await queue.waitUntilAllFinished()
    }

    @Test("a suspended queue starts nothing until resumed")
    func suspendAndResume() async {
        let ran = Counter()
        let queue = ProcedureQueue(isSuspended: true)
        queue.addProcedures((0..<10).map { _ in BlockProcedure { ran.increment() } })
        #expect(queue.unfinishedCount == 10)
        #expect(ran.count == 0)
        queue.isSuspended = false
        await queue.waitUntilAllFinished()
        #expect(ran.count == 10)
    }

    @Test("cancelAll cancels every unfinished procedure, and the queue drains")
    func cancelAll() async {
        let ran = Counter()
        let queue = ProcedureQueue(isSuspended: true)
        let procedures = (0..<10).map { _ in BlockProcedure { ran.increment() } }
        queue.addProcedures(procedures)
        queue.cancelAll()
        await queue.waitUntilAllFinished()
        #expect(ran.count == 0)
        #expect(procedures.allSatisfy { $0.isCancelled && $0.isFinished })
    }

    @Test("cancelAll starts nothing more: a running procedure that stops does not hand its slot to a waiting one")
    func cancelAllStartsNothing() async {
        let started = StartedProcedures<Int>()
        let queue = ProcedureQueue(maxConcurrentCount: 2)
        let procedures = (0..<20).map { ManualResultProcedure<Int>(name: "p\($0)", started: started) }
        queue.addProcedures(procedures)
        _ = await started.waitFor(2)
        queue.cancelAll()
        await queue.waitUntilAllFinished()
        #expect(procedures.filter { $0.executions.count > 0 }.count == 2)
        #expect(procedures.allSatisfy { $0.isCancelled && $0.isFinished })
    }

    @Test("observers hear will-add and did-finish for each procedure; a procedure is added once")
    func queueObserver() async {
        struct Recorder: ProcedureQueueObserver {
            let log: EventLog
            func queue(_ queue: ProcedureQueue, willAdd procedure: Procedure) { log.record("add \(procedure.name)") }
            func queue(_ queue: ProcedureQueue, didFinish procedure: Procedure) { log.record("done \(procedure.name)") }
        }
        let log = EventLog()
        let warnings = LogCapture()
        let queue = ProcedureQueue(logger: warnings.logger(level: .warning))
        queue.addObserver(Recorder(log: log))
        let procedure = BlockProcedure(name: "p") {}
        queue.addProcedure(procedure)
        await queue.waitUntilAllFinished()
        ProcedureQueue(logger: warnings.logger(level: .warning)).addProcedure(procedure)
        queue.addProcedure(procedure)
        #expect(procedure.isFinished)
        #expect(log.count(of: "done p") == 1)
        #expect(log.all.first == "add p")
        #expect(
            warnings.messages(at: .warning)
                == Array(repeating: "p: is finished: a procedure runs once, not added again", count: 2))
    }

    @Test("waitUntilAllFinished returns at once on an empty queue, otherwise only after the last procedure finished")
    func waitOnEmpty() async {
        let queue = ProcedureQueue()
        #expect(queue.unfinishedCount == 0)
        await queue.waitUntilAllFinished()

        let log = EventLog()
        queue.isSuspended = true
        queue.addBlock { log.record("ran") }
        #expect(queue.unfinishedCount == 1)
        // The waiter waits while the work cannot run: it can only return after the work did. The
        // work is let run only once the waiter is in place, so a wait that returned at once would
        // be seen returning first (a waiter that started late would find nothing to wait for).
        let waiter = Task {
            await queue.waitUntilAllFinished()
            log.record("returned")
        }
        while queue.waiterCount == 0, log.all.isEmpty { await Task.yield() }
        #expect(log.all.isEmpty, "the waiter returned before the work could run")
        queue.isSuspended = false
        await waiter.value
        #expect(log.all == ["ran", "returned"])
        #expect(queue.unfinishedCount == 0)
    }
}

/// Semantics rule 45: blocking work gets the width it asks for.
@Suite(.timeLimit(.minutes(2)))
struct BlockingWorkloadTests {
    @Test("45: a blocking queue of width 16 runs 16 blocking bodies at once, whatever the processor count")
    func sixteenAtOnce() async {
        let rendezvous = Rendezvous(expected: 16)
        let met = Counter()
        let queue = ProcedureQueue(maxConcurrentCount: 16, workload: .blocking)
        for _ in 0..<16 {
            queue.addBlock { if rendezvous.arriveAndWait(timeout: 60) { met.increment() } }
        }
        await queue.waitUntilAllFinished()
        #expect(met.count == 16)
    }

    @Test("45: a blocking queue still never runs more than its width")
    func widthHolds() async {
        let running = Counter()
        let overlaps = Counter()
        let gate = Rendezvous(expected: 3)
        let queue = ProcedureQueue(maxConcurrentCount: 3, workload: .blocking)
        for index in 0..<30 {
            queue.addBlock {
                if running.increment() > 3 { overlaps.increment() }
                // The first three meet, so the width is really used before the rest queue up.
                if index < 3 { _ = gate.arriveAndWait(timeout: 60) }
                running.decrement()
            }
        }
        await queue.waitUntilAllFinished()
        #expect(overlaps.count == 0)
    }

    @Test("a blocking queue's threads carry its name, and end once it has no work; a released queue keeps none")
    func threadsEnd() async {
        let name = "bq-" + String(UInt32.random(in: 0...UInt32.max), radix: 36)
        let seen = Counter()
        let started = Rendezvous(expected: 4)
        let counted = Rendezvous(expected: 4)
        var queue: ProcedureQueue? = ProcedureQueue(name: name, maxConcurrentCount: 4, workload: .blocking)
        for _ in 0..<4 {
            queue?.addBlock {
                // Between the two meetings all four bodies are on their threads.
                if started.arriveAndWait(timeout: 60) { seen.increment(by: ProcessThreads.count(named: name)) }
                _ = counted.arriveAndWait(timeout: 60)
            }
        }
        await queue?.waitUntilAllFinished()
        #expect(seen.count == 16, "each of the four bodies saw four threads named for the queue")
        queue = nil
        #expect(await ProcessThreads.waitUntilNone(named: name), "the queue's threads ended")
    }
}

/// An unbounded blocking queue starts a thread per ready body, not without end.
@Suite(.timeLimit(.minutes(2)))
struct UnboundedBlockingQueueTests {
    @Test("45: a blocking queue of unlimited width runs its bodies and stops starting threads")
    func unlimitedWidth() async {
        let queue = ProcedureQueue(workload: .blocking)
        let ran = Counter()
        for _ in 0..<20 { queue.addBlock { ran.increment() } }
        await queue.waitUntilAllFinished()
        #expect(ran.count == 20)
    }
}

/// Quality of service: priorities among ready procedures, and shutting a queue down.
@Suite(.timeLimit(.minutes(2)))
struct QueueServiceTests {
    @Test("ready procedures run user-initiated first, then utility, then background, each in order")
    func priorities() async {
        let log = EventLog()
        let queue = ProcedureQueue(maxConcurrentCount: 1, isSuspended: true)
        let plan: [(String, ProcedurePriority)] = [
            ("b1", .background), ("u1", .utility), ("i1", .userInitiated), ("u2", .utility), ("b2", .background),
            ("i2", .userInitiated),
        ]
        for (name, priority) in plan {
            let procedure = BlockProcedure(name: name) { log.record(name) }
            procedure.priority = priority
            queue.addProcedure(procedure)
        }
        queue.isSuspended = false
        await queue.waitUntilAllFinished()
        #expect(log.all == ["i1", "i2", "u1", "u2", "b1", "b2"])
    }

    @Test("a priority set after enqueueing is ignored with a warning")
    func latePriority() async {
        let capture = LogCapture()
        let queue = ProcedureQueue(isSuspended: true, logger: capture.logger())
        let procedure = BlockProcedure(name: "late") {}
        queue.addProcedure(procedure)
        procedure.priority = .userInitiated
        #expect(procedure.priority == .utility)
        #expect(
            capture.messages(at: .warning).contains {
                $0.contains("priority userInitiated was set after it was enqueued")
            })
        queue.isSuspended = false
        await queue.waitUntilAllFinished()
    }

    @Test("shutting down waits for running work and refuses new work, which finishes cancelled as misuse")
    func shutDown() async {
        let capture = LogCapture()
        let queue = ProcedureQueue(logger: capture.logger())
        let running = ManualProcedure(name: "running")
        queue.addProcedure(running)
        await running.started.wait()
        let shutdown = Task { await queue.shutDown() }
        while !queue.isShutDown { await Task.yield() }
        let late = BlockProcedure(name: "late") {}
        queue.addProcedure(late)
        await late.waitUntilFinished()
        #expect(late.isCancelled)
        #expect((late.error as? ProcedureError)?.code == .misuse)
        #expect(capture.messages(at: .warning).contains { $0.contains("after it was shut down") })
        #expect(!running.isFinished, "the running procedure was not cancelled")
        running.finish()
        await shutdown.value
        #expect(queue.unfinishedCount == 0)
    }

    @Test("shutting down with cancelling cancels what has not finished, and resumes a suspended queue")
    func shutDownCancelling() async {
        let ran = Counter()
        let queue = ProcedureQueue(isSuspended: true)
        let waiting = (0..<5).map { index in BlockProcedure(name: "w\(index)") { ran.increment() } }
        queue.addProcedures(waiting)
        await queue.shutDown(cancellingUnfinished: true)
        #expect(ran.count == 0)
        #expect(waiting.allSatisfy { $0.isCancelled && $0.isFinished && $0.error == nil })
    }
}
