import Plumbing

/// A way for a backend to say "my status may have changed": every subscriber re-reads it.
///
/// Backends notify from wherever they learn of a change (a netlink message, an inotify event,
/// an authorization granted or expiring) and build their ``CapabilityType/statusUpdates()``
/// with ``CapabilityStatusUpdates/signalled(_:by:following:)``.
///
/// ```swift
/// let changed = CapabilityChangeSignal()
/// let updates = CapabilityStatusUpdates.signalled(dataDirectory, by: [changed])
/// changed.notify()  // the status is read again and a change is delivered
/// _ = updates
/// ```
public final class CapabilityChangeSignal: Sendable {
    // Notifications that arrive while a subscriber is still reading coalesce into one.
    private let broadcast = EventBroadcast<Void>(buffering: .bufferingNewest(1))

    /// Creates a signal with no subscribers.
    public init() {}

    /// Tells every subscriber to re-read the status.
    public func notify() {
        broadcast.send(())
    }

    /// A stream that yields once per notification (coalesced) until the consumer stops.
    func subscribe() -> AsyncStream<Void> {
        broadcast.subscribe()
    }
}
