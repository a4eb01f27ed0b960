import Dispatch
import Locking
import TestSupport
import Testing

@testable import Plumbing

/// The threads under BlockingWork: a thread per waiting call, up to a limit, then in order.
@Suite("Blocking threads", .timeLimit(.minutes(2)))
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
        let onRelease: @Sendable () -> Void
        init(onRelease: @escaping @Sendable () -> Void) { self.onRelease = onRelease }
        deinit { onRelease() }
    }

    @Test("what a job captured is let go when the job ends, while its thread waits idle for the next")
    func releasedWhenDone() async {
        let threads = BlockingThreads(limit: 1)
        let released = Latch()
        // Read at the moment of release, on the releasing thread: however late this test resumes.
        let threadsAtRelease = Lock(-1)
        do {
            let held = Held {
                threadsAtRelease.withLock { $0 = threads.threadCount }
                released.open()
            }
            threads.run { _ = held }
        }
        await released.wait()
        // Still there, idle: the job did not wait for its thread to end (ten seconds later) to go.
        #expect(threadsAtRelease.withLock { $0 } == 1)
    }
}
