import Dispatch
import Locking
import Plumbing
import TestSupport
import Testing

/// The one way blocking calls run: off the cooperative pool, with the waiting task cancellable
/// and bounded while the call goes on.
@Suite("Blocking work", .timeLimit(.minutes(2)))
struct BlockingWorkTests {
    @Test("the work's value comes back")
    func finishes() async {
        let outcome = await BlockingWork.run { 6 * 7 }
        guard case .finished(let value) = outcome else {
            Issue.record("expected the value, got \(outcome)")
            return
        }
        #expect(value == 42)
    }

    @Test("cancelling the waiting task ends the wait while the call still blocks, and interrupts it")
    func cancellation() async {
        let release = DispatchSemaphore(value: 0)
        let started = Latch()
        let interrupted = Latch()
        let waiting = Task {
            await BlockingWork.run(
                interrupt: { interrupted.open() },
                {
                    started.open()
                    release.wait()
                    return 1
                })
        }
        await started.wait()
        waiting.cancel()
        let outcome = await waiting.value
        #expect(outcome.isCancelled)
        #expect(interrupted.isOpen)
        release.signal()
    }

    @Test("a task cancelled before it waits does not start the work")
    func cancelledFirst() async {
        let ran = Lock(false)
        let waiting = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await BlockingWork.run { ran.withLock { $0 = true } }
        }
        #expect(await waiting.value.isCancelled)
        // Work is started only as the wait begins; a wait that never began started none.
        #expect(!ran.withLock { $0 })
    }

    @Test("a deadline that passes first ends the wait as timed out")
    func deadline() async {
        let release = DispatchSemaphore(value: 0)
        let interrupted = Latch()
        let outcome = await BlockingWork.run(
            deadline: .now, interrupt: { interrupted.open() },
            {
                release.wait()
                return 1
            })
        #expect(outcome.isTimedOut)
        #expect(interrupted.isOpen)
        release.signal()
    }

    /// Dispatch's queues passed this only after about a second per call beyond the first few (16 calls
    /// took 16 s), so 64 of them run past the suite's time limit there.
    @Test("more blocked calls than the cooperative pool has threads all run at once")
    func manyBlockedCalls() async {
        let count = 64
        let release = DispatchSemaphore(value: 0)
        let running = Counter()
        let allRunning = Latch()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<count {
                group.addTask {
                    _ = await BlockingWork.run {
                        if running.increment() == count { allRunning.open() }
                        release.wait()
                    }
                }
            }
            // Only possible when every call has a thread of its own: each holds its thread until released.
            await allRunning.wait()
            for _ in 0..<count { release.signal() }
        }
        #expect(running.count == count)
    }
}

extension BlockingOutcome {
    fileprivate var isCancelled: Bool {
        if case .cancelled = self { true } else { false }
    }

    fileprivate var isTimedOut: Bool {
        if case .timedOut = self { true } else { false }
    }
}
