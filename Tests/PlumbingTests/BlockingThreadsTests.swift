import Dispatch
import Locking
import TestSupport
import Testing

@testable import Plumbing

/// The threads under BlockingWork: a thread per waiting call, up to a limit, then in order.
@Suite("Blocking threads", .timeLimit(.minutes(1)))
struct BlockingThreadsTests {
    @Test("past the limit, a call waits for a thread and then runs, in the order the calls came")
    func limit() async {
        let threads = BlockingThreads(limit: 2)
        let release = DispatchSemaphore(value: 0)
        let log = EventLog()
        let started = Counter()
        let bothStarted = Latch()
        let lastRan = Latch()
        for name in ["first", "second"] {
            threads.run {
                if started.increment() == 2 { bothStarted.open() }
                release.wait()
                log.record("\(name) done")
            }
        }
        threads.run {
            log.record("third ran")
            lastRan.open()
        }
        await bothStarted.wait()
        // Both threads hold a call that waits for `release`: the third has no thread to run on.
        #expect(!lastRan.isOpen)
        release.signal()
        await lastRan.wait()
        #expect(log.all.first?.hasSuffix(" done") == true, "\(log.all)")
        #expect(log.all.contains("third ran"))
        release.signal()
    }

    /// Something a job captures, as a service's handler captures its client's connection.
    private final class Held: Sendable {
        let released: Latch
        init(_ released: Latch) { self.released = released }
        deinit { released.open() }
    }

    @Test("what a job captured is let go when the job ends, while its thread waits idle for the next")
    func releasedWhenDone() async {
        let threads = BlockingThreads(limit: 1)
        let released = Latch()
        do {
            let held = Held(released)
            threads.run { _ = held }
        }
        await released.wait()
        // Still there, idle: the job did not wait for its thread to end (ten seconds later) to go.
        #expect(threads.threadCount == 1)
    }
}
