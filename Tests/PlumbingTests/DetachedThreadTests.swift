import Dispatch
import Glibc
import TestSupport
import Testing

@testable import Plumbing

/// Threads this package starts: at the priority the process was started with.
@Suite("Detached threads", .timeLimit(.minutes(1)))
struct DetachedThreadTests {
    /// The nice value this process's first thread has: what it was started with (nothing here
    /// changes that thread's).
    static var startNice: Int? { ProcessThreads.niceValues(named: firstThreadName, of: getpid()).first }

    /// `PRIO_PROCESS`: with 0, the calling thread on Linux.
    static let thisThread = __priority_which_t(PRIO_PROCESS.rawValue)

    static var firstThreadName: String {
        (try? String(contentsOfFile: "/proc/self/comm", encoding: .utf8))?.trimmingCharacters(in: .newlines) ?? ""
    }

    @Test(
        "a thread started from one at another nice value (as Dispatch gives its workers) takes the process's",
        .enabled(if: geteuid() == 0, "raising a thread back to the start value needs CAP_SYS_NICE or a RLIMIT_NICE")
    )
    func takesStartPriority() async throws {
        let start = try #require(Self.startNice)
        let done = DispatchSemaphore(value: 0)
        let values = Values()
        // The starting thread lowers its own priority (always allowed), as Dispatch sets a worker's
        // from its quality of service, and starts another: that one inherits the lowered value.
        #expect(
            DetachedThread.start(named: "nice-starter") {
                if setpriority(Self.thisThread, 0, Int32(start + 3)) == 0 {
                    values.starter = Int(getpriority(Self.thisThread, 0))
                }
                let started = DetachedThread.start(named: "nice-started") {
                    values.started = Int(getpriority(Self.thisThread, 0))
                    done.signal()
                }
                if !started { done.signal() }
            })
        try await awaitBlocking { done.wait() }
        #expect(values.starter == start + 3, "the starting thread lowered its own")
        #expect(values.started == start, "the thread it started serves at the process's start value")
    }

    /// What the two threads saw, each written by one thread before the semaphore is signalled.
    final class Values: @unchecked Sendable {
        var starter: Int?
        var started: Int?
    }
}
