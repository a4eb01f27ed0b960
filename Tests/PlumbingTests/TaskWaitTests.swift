import Dispatch
import Glibc
import Locking
import Plumbing
import TestSupport
import Testing

/// A service's client thread asking the async core: the tasks run on that thread, blocking work
/// too, and nothing is left waiting.
@Suite("TaskWait", .timeLimit(.minutes(2)))
struct TaskWaitTests {
    /// `body` on a thread of our own (TaskWait is never called from the cooperative pool), and
    /// that thread's id.
    static func onOwnThread<Value: Sendable>(_ body: @escaping @Sendable () -> Value) async -> (Value, pthread_t) {
        await withCheckedContinuation { continuation in
            let started = DetachedThread.start(named: "task-wait-test") {
                continuation.resume(returning: (body(), pthread_self()))
            }
            precondition(started)
        }
    }

    @Test("the work's tasks run on the calling thread, child tasks and continuations resumed elsewhere included")
    func runsOnCallingThread() async {
        let (threads, caller) = await Self.onOwnThread {
            TaskWait.value { () -> [pthread_t] in
                var seen = [pthread_self()]
                await Task.yield()
                seen.append(pthread_self())
                async let child = pthread_self()
                seen.append(await child)
                // Resumed from one of Dispatch's threads: the rest still runs on the caller.
                let resumed = await withCheckedContinuation { continuation in
                    DispatchQueue.global().async { continuation.resume(returning: 7) }
                }
                if resumed == 7 { seen.append(pthread_self()) }
                let unstructured = Task(executorPreference: TaskWait.executor) { pthread_self() }
                seen.append(await unstructured.value)
                return seen
            }
        }
        #expect(threads.count == 5)
        #expect(threads.allSatisfy { $0 == caller }, "\(threads) on \(caller)")
    }

    @Test("blocking work without a deadline runs inline on the calling thread; with one, on a thread of its own")
    func blockingWorkInline() async {
        let ((inline, bounded), caller) = await Self.onOwnThread {
            TaskWait.value { () -> (pthread_t?, pthread_t?) in
                let inline = try? await BlockingWork.value { pthread_self() }
                let bounded = await BlockingWork.run(deadline: .now + .seconds(30)) { pthread_self() }
                guard case .finished(let other) = bounded else { return (inline, nil) }
                return (inline, other)
            }
        }
        #expect(inline == caller)
        #expect(bounded != nil && bounded != caller)
    }

    @Test("the thread may block only while it runs a TaskWait's tasks")
    func flagRestored() async {
        let (during, after) = await Self.onOwnThread { () -> (Bool, Bool) in
            let during = TaskWait.value { TaskWait.threadMayBlockForTesting }
            return (during, TaskWait.threadMayBlockForTesting)
        }.0
        #expect(during)
        #expect(!after)
        #expect(!TaskWait.threadMayBlockForTesting)
    }
}
