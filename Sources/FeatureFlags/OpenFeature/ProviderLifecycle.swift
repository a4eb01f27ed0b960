/// One bound provider's lifecycle as the API sees it, as a state machine in swift-nio's shape:
/// the phase carries what is valid only there, every event returns an action for the API to
/// carry out outside its lock, and an event its caller can never send is a precondition failure.
///
/// Two kinds of provider reach ready or error differently. An older provider is initialized when
/// `initialize` returns, and the API announces the outcome (unless the provider announced it
/// itself meanwhile, so handlers hear the news once: 5.3.1, 5.3.2). A provider that announces
/// its own lifecycle (``FeatureProvider/emitsLifecycleEvents``) is initialized by its first ready
/// or error event (2.8.1–2.8.3), which `setProvider` waits for.
///
/// | Phase                     | Event                            | Action, and the phase after |
/// |---------------------------|----------------------------------|-----------------------------|
/// | initializing              | `initializeReturned`             | announce, or none if the provider did; running |
/// | initializing              | `received` ready or error        | pass on; initializing (the provider announced) |
/// | awaitingLifecycleEvent    | `waitForLifecycleEvent`          | wait, with the waiter stored |
/// | awaitingLifecycleEvent    | `received` ready or error        | pass on, resume the waiter; running |
/// | awaitingLifecycleEvent    | `eventsEnded`                    | resume the waiter; eventsEnded |
/// | running (echo of the API's announcement) | `received` the same kind | swallow; running |
/// | any                       | `released` (replaced, shut down) | resume a waiter; released |
struct ProviderLifecycle: Sendable {
    enum Phase: Sendable {
        /// An older provider's `initialize` is running; `providerAnnounced` once the provider
        /// announced ready or error itself meanwhile (the API then announces nothing).
        case initializing(providerAnnounced: Bool)
        /// A provider that announces its lifecycle has not yet; `setProvider` waits here once it asks.
        case awaitingLifecycleEvent(waiter: CheckedContinuation<Void, Never>?)
        /// Initialized. `echo` is the event the API announced for an older provider's
        /// initialization: the same event from the provider, arriving later, is the same news.
        case running(echo: ProviderEvent.Kind?)
        /// The event stream of a provider that announces its lifecycle ended before it did:
        /// nothing can come any more.
        case eventsEnded
        /// Replaced, or the API shut down: nobody waits for it any more.
        case released
    }

    /// Where the provider stands, as clients see it.
    private(set) var status: ProviderStatus
    private(set) var phase: Phase

    private init(status: ProviderStatus, phase: Phase) {
        (self.status, self.phase) = (status, phase)
    }

    /// A provider just set, not ready until it is initialized.
    static func starting(announcesItself: Bool) -> ProviderLifecycle {
        ProviderLifecycle(
            status: .notReady,
            phase: announcesItself ? .awaitingLifecycleEvent(waiter: nil) : .initializing(providerAnnounced: false))
    }

    /// A provider in place with `status` and nothing to wait for (the no-op provider).
    static func settled(_ status: ProviderStatus) -> ProviderLifecycle {
        ProviderLifecycle(status: status, phase: .running(echo: nil))
    }

    enum InitializationAction {
        /// The API announces this event, from the provider.
        case announce(ProviderEvent)
        /// The provider announced the outcome itself.
        case none
    }

    /// An older provider's `initialize` returned, having thrown `failure` or not.
    mutating func initializeReturned(failure: (any Error)?) -> InitializationAction {
        guard case .initializing(let providerAnnounced) = phase else {
            preconditionFailure("initialize returned for a provider in phase \(phase)")
        }
        phase = .running(echo: nil)
        if providerAnnounced { return .none }
        let event: ProviderEvent
        if let failure {
            let fatal = (failure as? ProviderError)?.isFatal == true
            status = fatal ? .fatal : .error
            event = ProviderEvent(
                .error, message: "\(failure)", isFatal: fatal, errorCode: fatal ? .providerFatal : .general)
        } else {
            status = .ready
            event = ProviderEvent(.ready)
        }
        phase = .running(echo: event.kind)
        return .announce(event)
    }

    enum WaitAction {
        case waiting
        /// Its lifecycle event came already, or never can: resume the waiter now.
        case resumeNow
    }

    /// `setProvider` waits for the lifecycle event of a provider that announces its own.
    mutating func waitForLifecycleEvent(_ waiter: CheckedContinuation<Void, Never>) -> WaitAction {
        switch phase {
        case .awaitingLifecycleEvent(let current):
            precondition(current == nil, "a second wait for one provider's lifecycle event")
            phase = .awaitingLifecycleEvent(waiter: waiter)
            return .waiting
        case .running, .eventsEnded, .released:
            return .resumeNow
        case .initializing:
            preconditionFailure("a wait for the lifecycle event of a provider that does not announce it")
        }
    }

    enum ReceiveAction {
        /// Pass the event on to handlers, and resume `setProvider` if it waited for it.
        case passOn(resuming: CheckedContinuation<Void, Never>?)
        /// The provider repeating what the API announced for it: handlers heard it already.
        case swallow
    }

    /// The provider sent `event`.
    mutating func received(_ event: ProviderEvent) -> ReceiveAction {
        let lifecycle = event.kind == .ready || event.kind == .error
        var resuming: CheckedContinuation<Void, Never>?
        switch phase {
        case .awaitingLifecycleEvent(let waiter) where lifecycle:
            // Its first ready or error ends its initialization (5.3.5: its events alone say where it stands).
            phase = .running(echo: nil)
            resuming = waiter
        case .running(let echo?) where echo == event.kind:
            phase = .running(echo: nil)
            return .swallow
        case .running(.some):
            phase = .running(echo: nil)
        case .initializing where lifecycle:
            phase = .initializing(providerAnnounced: true)
        case .initializing, .awaitingLifecycleEvent, .running(nil), .eventsEnded, .released:
            break
        }
        switch event.kind {
        case .ready: status = .ready
        case .error: status = event.isFatal || event.errorCode == .providerFatal ? .fatal : .error
        case .stale: status = .stale
        default: break  // a configuration change, or a kind of event that changes no state
        }
        return .passOn(resuming: resuming)
    }

    enum ResumeAction {
        /// Resume this waiter, if there is one.
        case resume(CheckedContinuation<Void, Never>?)
    }

    /// The provider's event stream ended.
    mutating func eventsEnded() -> ResumeAction {
        guard case .awaitingLifecycleEvent(let waiter) = phase else { return .resume(nil) }
        phase = .eventsEnded
        return .resume(waiter)
    }

    /// The binding is replaced or the API shut down: whoever waits for it stops waiting.
    mutating func released() -> ResumeAction {
        defer { phase = .released }
        guard case .awaitingLifecycleEvent(let waiter) = phase else { return .resume(nil) }
        return .resume(waiter)
    }
}
