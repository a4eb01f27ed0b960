import TestSupport
import Testing

@testable import FeatureFlags

/// `ProviderLifecycle` alone: every order of the events a bound provider can see, for both kinds
/// of provider, checked after each event. The API-level behaviour is in ProviderLifecycleTests.
@Suite("Provider lifecycle machine")
struct ProviderLifecycleMachineTests {
    enum Event: CustomStringConvertible {
        case initializeReturned(failure: ProviderError?)
        case waitForLifecycleEvent
        case received(ProviderEvent.Kind)
        case receivedFatal
        case eventsEnded
        case released

        var description: String {
            switch self {
            case .initializeReturned(let failure): "initializeReturned(\(failure.map { "\($0)" } ?? "success"))"
            case .waitForLifecycleEvent: "wait"
            case .received(let kind): "received(\(kind.rawValue))"
            case .receivedFatal: "received(fatal error)"
            case .eventsEnded: "eventsEnded"
            case .released: "released"
            }
        }
    }

    /// What handlers would last have heard decides the status: the status is never ahead of or
    /// behind the news.
    static func status(after kind: ProviderEvent.Kind?, fatal: Bool) -> ProviderStatus? {
        switch kind {
        case nil: .notReady
        case .ready?: .ready
        case .error?: fatal ? .fatal : .error
        case .stale?: .stale
        default: nil
        }
    }

    /// Runs `order` on a fresh machine and returns what went wrong. `setProvider`'s wait is a real
    /// continuation: the machine must hand it back exactly once, or the wait would hang or trap.
    static func run(_ order: [Event], announcesItself: Bool) async -> [String] {
        var failures: [String] = []
        var machine = ProviderLifecycle.starting(announcesItself: announcesItself)
        var heard: (kind: ProviderEvent.Kind, fatal: Bool)?
        var lastNews: (kind: ProviderEvent.Kind, fromAPI: Bool)?
        var resumes = 0
        // Once set, a wait may not go on: its lifecycle event came, its stream ended, or it was replaced.
        var waited = false
        var waitIsOver = false
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            var isReleased = false
            for event in order {
                // Once released, the binding is gone: the API delivers nothing to it, and a wait
                // for it ends at once (its generation is no longer bound).
                if isReleased {
                    if case .waitForLifecycleEvent = event {
                        waited = true
                        resumes += 1
                    }
                    continue
                }
                switch event {
                case .initializeReturned(let failure):
                    if case .announce(let announced) = machine.initializeReturned(failure: failure) {
                        heard = (announced.kind, announced.isFatal)
                        lastNews = (announced.kind, true)
                    }
                case .waitForLifecycleEvent:
                    waited = true
                    if case .resumeNow = machine.waitForLifecycleEvent(waiter) { resumes += 1 }
                case .received, .receivedFatal:
                    let (kind, fatal): (ProviderEvent.Kind, Bool) =
                        if case .received(let kind) = event { (kind, false) } else { (.error, true) }
                    let sent = ProviderEvent(kind, isFatal: fatal)
                    if kind == .ready || kind == .error { waitIsOver = true }
                    switch machine.received(sent) {
                    case .passOn(let resuming):
                        if resuming != nil { resumes += 1 }
                        if let news = lastNews, news.fromAPI, news.kind == kind {
                            failures.append(
                                "\(order): the provider's repeat of the API's \(kind.rawValue) was passed on")
                        }
                        if kind != .configurationChanged { heard = (kind, fatal) }
                        lastNews = (kind, false)
                    case .swallow:
                        if lastNews?.fromAPI != true || lastNews?.kind != kind {
                            failures.append("\(order): \(kind.rawValue) swallowed though it was news")
                        }
                        lastNews = (kind, false)
                    }
                case .eventsEnded:
                    waitIsOver = true
                    if case .resume(let resuming) = machine.eventsEnded(), resuming != nil { resumes += 1 }
                case .released:
                    waitIsOver = true
                    isReleased = true
                    if case .resume(let resuming) = machine.released(), resuming != nil { resumes += 1 }
                }
                if let expected = status(after: heard?.kind, fatal: heard?.fatal ?? false), machine.status != expected {
                    failures.append(
                        "\(order) after \(event): status \(machine.status.rawValue), handlers heard \(expected.rawValue)"
                    )
                }
                if announcesItself, waited, waitIsOver, resumes == 0 {
                    failures.append("\(order) after \(event): setProvider still waits")
                }
                if resumes > 1 { failures.append("\(order) after \(event): the wait was resumed \(resumes) times") }
            }
            // Whoever still waits is let go when the binding goes.
            if !isReleased, case .resume(let resuming) = machine.released(), resuming != nil { resumes += 1 }
            if resumes != 1, order.contains(where: { if case .waitForLifecycleEvent = $0 { true } else { false } }) {
                failures.append("\(order): the wait was resumed \(resumes) times in all")
            }
            waiter.resume()
        }
        return failures
    }

    @Test(
        "an older provider: the API announces the initialization unless the provider did, and a repeat is swallowed; the status follows the news (every order of six events, three outcomes)",
        arguments: [nil, ProviderError("no file"), ProviderError("broken", isFatal: true)])
    func olderProvider(failure: ProviderError?) async {
        let events: [Event] = [
            .initializeReturned(failure: failure), .received(.ready), .received(.error), .received(.stale),
            .eventsEnded, .released,
        ]
        var failures: [String] = []
        for order in permutations(events) {
            failures += await Self.run(order, announcesItself: false)
        }
        #expect(failures.isEmpty, "\(failures.prefix(5))")
    }

    @Test(
        "a provider that announces itself: setProvider's wait ends once, at its first ready or error, its stream's end, or its replacement (every order of seven events)"
    )
    func announcingProvider() async {
        let events: [Event] = [
            .waitForLifecycleEvent, .received(.ready), .receivedFatal, .received(.stale),
            .received(.configurationChanged), .eventsEnded, .released,
        ]
        var failures: [String] = []
        for order in permutations(events) {
            failures += await Self.run(order, announcesItself: true)
        }
        #expect(failures.isEmpty, "\(failures.prefix(5))")
    }
}
