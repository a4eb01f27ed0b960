import Dispatch

/// Runs a handler once after a delay without holding a thread. The owner keeps the timer:
/// cancelling it, or letting go of it, releases the handler at once.
final class OneShotTimer: @unchecked Sendable {
    // Dispatch sources are thread-safe; this one is only scheduled, resumed and cancelled.
    private let source: any DispatchSourceTimer

    init(after delay: Duration, handler: @escaping @Sendable () -> Void) {
        source = DispatchSource.makeTimerSource(queue: .global())
        source.schedule(deadline: .now() + delay.dispatchInterval)
        source.setEventHandler { [weak self] in
            self?.cancel()
            handler()
        }
        source.resume()
    }

    func cancel() {
        source.cancel()
    }

    deinit {
        source.cancel()
    }
}

extension Duration {
    /// The duration for Dispatch, clamped to zero below and to about 290 years above.
    var dispatchInterval: DispatchTimeInterval {
        let (seconds, attoseconds) = components
        if seconds < 0 { return .nanoseconds(0) }
        if seconds > Int64(Int.max / 1_000_000_000) - 1 { return .never }
        return .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
    }
}
