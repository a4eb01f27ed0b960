import Locking

/// Sends each event to every current subscriber's stream: the one broadcast of this package's
/// signals, stores and providers.
package final class EventBroadcast<Element: Sendable>: Sendable {
    private struct Subscribers {
        var next = 0
        var continuations: [Int: AsyncStream<Element>.Continuation] = [:]
    }

    private let subscribers = Lock(Subscribers())
    private let buffering: AsyncStream<Element>.Continuation.BufferingPolicy

    /// Creates a broadcast whose subscribers buffer events as `buffering` says.
    package init(buffering: AsyncStream<Element>.Continuation.BufferingPolicy = .unbounded) {
        self.buffering = buffering
    }

    /// Sends `event` to every subscriber.
    package func send(_ event: Element) {
        let continuations = subscribers.withLock { Array($0.continuations.values) }
        for continuation in continuations { continuation.yield(event) }
    }

    /// Ends every subscriber's stream (its consumer's loop ends); later subscribers are not affected.
    package func finishAll() {
        let continuations = subscribers.withLock { state in
            defer { state.continuations = [:] }
            return Array(state.continuations.values)
        }
        for continuation in continuations { continuation.finish() }
    }

    /// How many subscribers are listening: a stream whose consumer stopped (or was released) is
    /// no longer one.
    package var subscriberCount: Int { subscribers.withLock { $0.continuations.count } }

    /// A stream of every event from now on, until the consumer stops.
    package func subscribe() -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream<Element>.makeStream(bufferingPolicy: buffering)
        let id = subscribers.withLock { state -> Int in
            defer { state.next += 1 }
            state.continuations[state.next] = continuation
            return state.next
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLock { $0.continuations.removeValue(forKey: id) }
        }
        return stream
    }
}
