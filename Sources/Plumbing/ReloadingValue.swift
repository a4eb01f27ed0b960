import Locking

/// How configuration is kept current, for every store here (flag files, policies): read, read
/// again when told or when watched files change; a read that fails keeps the last good value in
/// force and says why; every change, and every new failure, is reported once.
package final class ReloadingValue<Value: Sendable, Failure: Error & Equatable & Sendable>: Sendable {
    /// What one read found.
    package enum Outcome: Sendable {
        /// A new value.
        case loaded(Value)
        /// The same input as the last read: nothing to do.
        case unchanged
        /// The input does not load.
        case failed(Failure)
    }

    /// What changed.
    package enum Event: Sendable {
        /// A new value is in force.
        case loaded(Value)
        /// A read failed; the last good value (if any) stays in force.
        case failed(Failure)
    }

    private struct State {
        var current: Value?
        var problem: Failure?
    }

    private let state = Lock(State())
    private let load: @Sendable () -> Outcome
    private let onEvent: @Sendable (Event) -> Void
    private let stopWatcher = Lock<(@Sendable () -> Void)?>(nil)
    /// One read at a time, from its load to its event: a reader told to read again (reloadAll)
    /// while the watcher is reading the same edit must not return, finding the text unchanged,
    /// before the watcher's value is in force.
    private let reading = Lock(())

    /// A value read by `load`; `onEvent` hears each change after it took effect. Nothing is
    /// read until ``reload()``.
    package init(load: @escaping @Sendable () -> Outcome, onEvent: @escaping @Sendable (Event) -> Void) {
        self.load = load
        self.onEvent = onEvent
    }

    /// The value in force: the last one that loaded, or nil when none ever did.
    package var current: Value? { state.withLock { $0.current } }

    /// Why the last read failed, or nil when it did not.
    package var problem: Failure? { state.withLock { $0.problem } }

    /// Reads again now; once it returns, what the input holds now is in force (or its failure
    /// reported), even when a watcher was reading it at the same time. A failure equal to the one
    /// already reported is not reported again.
    package func reload() {
        reading.withLock { _ in read() }
    }

    private func read() {
        let event: Event?
        switch load() {
        case .unchanged:
            event = nil
        case .loaded(let value):
            state.withLock {
                $0.current = value
                $0.problem = nil
            }
            event = .loaded(value)
        case .failed(let failure):
            event = state.withLock { state -> Event? in
                guard state.problem != failure else { return nil }
                state.problem = failure
                return .failed(failure)
            }
        }
        if let event { onEvent(event) }
    }

    /// Keeps a watcher that calls ``reload()`` on changes; `stop` ends it (and returns once it has
    /// ended) when ``stopWatching()`` is called or another watcher replaces it. The watcher must
    /// hold this value weakly: the value owns it, not the other way round.
    package func keepWatching(stop: @escaping @Sendable () -> Void) {
        stopWatcher.withLock { current in
            defer { current = stop }
            return current
        }?()
    }

    /// Stops watching; returns once the watcher has stopped.
    package func stopWatching() {
        stopWatcher.withLock { current in
            defer { current = nil }
            return current
        }?()
    }
}
