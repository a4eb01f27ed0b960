import Synchronization

/// A way for a backend to say "my status may have changed": every subscriber re-reads it.
///
/// Backends notify from wherever they learn of a change (a netlink message, an inotify event,
/// an authorization granted or expiring) and build their ``CapabilityType/statusUpdates()``
/// with ``CapabilityStatusUpdates/signalled(_:by:)``.
public final class CapabilityChangeSignal: Sendable {
    private struct Subscribers {
        var next = 0
        var continuations: [Int: AsyncStream<Void>.Continuation] = [:]
    }

    private let subscribers = Mutex(Subscribers())

    /// Creates a signal with no subscribers.
    public init() {}

    /// Tells every subscriber to re-read the status. Notifications that arrive while a
    /// subscriber is still reading coalesce into one.
    public func notify() {
        let continuations = subscribers.withLock { Array($0.continuations.values) }
        for continuation in continuations { continuation.yield() }
    }

    /// A stream that yields once per notification (coalesced) until the consumer stops.
    func subscribe() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
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
