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
}
