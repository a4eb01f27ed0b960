import Dispatch
import Locking

/// Runs async work from a thread of our own and blocks that thread until it is done: how a
/// service's client thread (`BlockingThreads`) asks the async core for a decision. Never from
/// one of Swift's cooperative threads, which this would hold.
package enum TaskWait {
    /// The value `operation` returns, waiting for it on the calling thread.
    package static func value<Value: Sendable>(_ operation: @escaping @Sendable () async -> Value) -> Value {
        let done = DispatchSemaphore(value: 0)
        let result = Lock<Value?>(nil)
        Task {
            let value = await operation()
            result.withLock { $0 = value }
            done.signal()
        }
        done.wait()
        return result.withLock { $0! }
    }
}
