import FeatureFlags
import Locking
import OpenFeatureIsolation
import Synchronization
import TestSupport
import Testing

/// OpenFeature's specification, requirement by requirement: each test names the requirement it
/// holds the API to.
@Suite("OpenFeature specification", .timeLimit(.minutes(2)))
struct OpenFeatureSpecificationTests {
    /// A provider that answers every flag with what the test scripted, however odd, and records
    /// what it was asked and what it tracked.
    final class ScriptedProvider: FeatureProvider {
        let answer: Lock<FlagEvaluationDetails<FlagValue>?> = Lock(nil)
        let tracked = Lock<[(name: String, context: FlagEvaluationContext?, details: TrackingEventDetails?)]>([])
        let received = Lock<FlagEvaluationContext?>(nil)
        let name: String

        init(name: String = "scripted") { self.name = name }

        var metadata: ProviderMetadata { ProviderMetadata(name: name) }

        func track(_ eventName: String, context: FlagEvaluationContext?, details: TrackingEventDetails?) {
            tracked.withLock { $0.append((eventName, context, details)) }
        }

        private func scripted<T>(
            _ key: String, _ value: T, _ context: FlagEvaluationContext?, _ read: (FlagValue) -> T?
        )
            -> FlagEvaluationDetails<T>
        {
            received.withLock { $0 = context }
            guard let answer = answer.withLock({ $0 }) else {
                return FlagEvaluationDetails(flagKey: key, value: value, reason: .default)
            }
            return FlagEvaluationDetails(
                flagKey: answer.flagKey, value: read(answer.value) ?? value, variant: answer.variant,
                reason: answer.reason, errorCode: answer.errorCode, errorMessage: answer.errorMessage,
                flagMetadata: answer.flagMetadata)
        }

        func resolveBooleanEvaluation(_ key: String, default value: Bool, context: FlagEvaluationContext?)
            -> FlagEvaluationDetails<Bool>
        { scripted(key, value, context, \.boolValue) }
        func resolveStringEvaluation(_ key: String, default value: String, context: FlagEvaluationContext?)
            -> FlagEvaluationDetails<String>
        { scripted(key, value, context, \.stringValue) }
        func resolveIntegerEvaluation(_ key: String, default value: Int, context: FlagEvaluationContext?)
            -> FlagEvaluationDetails<Int>
        { scripted(key, value, context, \.integerValue) }
        func resolveDoubleEvaluation(_ key: String, default value: Double, context: FlagEvaluationContext?)
            -> FlagEvaluationDetails<Double>
        { scripted(key, value, context, \.numberValue) }
        func resolveObjectEvaluation(_ key: String, default value: FlagValue, context: FlagEvaluationContext?)
            -> FlagEvaluationDetails<FlagValue>
        { scripted(key, value, context) { $0 } }
    }

    @Test(
        "1.4.8, 1.4.9, 1.4.10, 1.4.13, 1.4.14: an error code gets the caller's default and reason ERROR, whatever the provider put beside it"
    )
    func errorsGetTheDefault() async {
        let api = OpenFeatureAPI()
        let provider = ScriptedProvider()
        provider.answer.withLock {
            $0 = FlagEvaluationDetails(
                flagKey: "f", value: .string("provider's value"), variant: "odd", reason: .targetingMatch,
                errorCode: .parseError, errorMessage: "bad rule", flagMetadata: ["team": "web"])
        }
        await api.setProvider(provider)
        let details = api.client().stringDetails("f", default: "caller's default")
        #expect(details.value == "caller's default")
        #expect(details.reason == .error)
        #expect(details.variant == nil)
        #expect(details.errorCode == .parseError)
        #expect(details.errorMessage == "bad rule")
        #expect(details.flagMetadata == ["team": "web"], "1.4.14: the provider's metadata is kept")
        // Without hooks and with them, the same answer.
        let hooked = api.client(hooks: [CountingHook()]).stringDetails("f", default: "caller's default")
        #expect(hooked.value == "caller's default" && hooked.reason == .error)
    }

    @Test("1.4.11: an evaluation that went wrong is logged with its flag, code and message; a good one is not")
    func abnormalEvaluationsLogged() async {
        let api = OpenFeatureAPI()
        let capture = LogCapture()
        api.logger = capture.logger(level: .warning)
        await api.setProvider(InMemoryFlagProvider(["f": true]))
        let client = api.client(domain: "reports")
        #expect(client.boolean("f", default: false) == true)
        #expect(capture.messages(at: .warning).isEmpty)
        #expect(client.boolean("missing", default: false) == false)
        let logged = capture.messages(at: .warning)
        #expect(logged.count == 1)
        #expect(logged.first?.contains("flag missing evaluated to the caller's default: FLAG_NOT_FOUND") == true)
    }

    @Test("1.4.5: the details carry the key asked for, even when the provider wrote another")
    func keyAskedFor() async {
        let api = OpenFeatureAPI()
        let provider = ScriptedProvider()
        provider.answer.withLock { $0 = FlagEvaluationDetails(flagKey: "other", value: true, reason: .static) }
        await api.setProvider(provider)
        let details = api.client().booleanDetails("asked", default: false)
        #expect(details.flagKey == "asked")
        #expect(details.value == true && details.reason == .static)
    }

    /// Counts its calls; stores in its hook data at `before` and reads it back later.
    final class CountingHook: FlagHook {
        let seen = Lock<[String]>([])

        func before(_ context: HookContext, hints: HookHints) throws -> FlagEvaluationContext? {
            #expect(context.hookData["stage"] == nil, "4.3.2: fresh data for each evaluation")
            context.hookData["stage"] = "before of \(context.flagKey)"
            return nil
        }

        func after(_ context: HookContext, details: FlagEvaluationDetails<FlagValue>, hints: HookHints) throws {
            seen.withLock { $0.append("after saw \(context.hookData["stage", as: String.self] ?? "nothing")") }
        }

        func error(_ context: HookContext, error: any Error, hints: HookHints) {
            seen.withLock { $0.append("error saw \(context.hookData["stage", as: String.self] ?? "nothing")") }
        }

        func finally(_ context: HookContext, details: FlagEvaluationDetails<FlagValue>, hints: HookHints) {
            seen.withLock { $0.append("finally saw \(context.hookData["stage", as: String.self] ?? "nothing")") }
        }
    }

    /// Reads another hook's key from its own data: it must not see it.
    struct SnoopingHook: FlagHook {
        let seen: OpenFeatureClientTests.Log
        func finally(_ context: HookContext, details: FlagEvaluationDetails<FlagValue>, hints: HookHints) {
            seen.append("snoop saw \(context.hookData["stage", as: String.self] ?? "nothing")")
        }
    }

    @Test("4.1.5, 4.3.2, 4.6.1: a hook's data goes from its before stage to its later ones, and no other hook sees it")
    func hookData() async {
        let api = OpenFeatureAPI()
        await api.setProvider(InMemoryFlagProvider(["f": true]))
        let hook = CountingHook()
        let snooped = OpenFeatureClientTests.Log()
        let client = api.client(hooks: [hook, SnoopingHook(seen: snooped)])
        _ = client.boolean("f", default: false)
        _ = client.boolean("missing", default: false)
        #expect(
            hook.seen.withLock { $0 } == [
                "after saw before of f", "finally saw before of f",
                "error saw before of missing", "finally saw before of missing",
            ])
        #expect(snooped.all == ["snoop saw nothing", "snoop saw nothing"])
    }

    /// What a tracing hook keeps from `before` to `finally`: an object, not a value.
    final class Span: Sendable {
        let name: String
        let ended = Atomic<Bool>(false)
        init(name: String) { self.name = name }
    }

    /// Opens a span and notes the time at `before`; ends the span and reads both back at `finally`.
    final class TracingHook: FlagHook {
        let finished = Lock<[(span: Span, elapsed: Duration, wrongType: Int?)]>([])

        func before(_ context: HookContext, hints: HookHints) throws -> FlagEvaluationContext? {
            context.hookData["span"] = Span(name: "flag \(context.flagKey)")
            context.hookData["started"] = ContinuousClock.now
            context.hookData["attributes"] = ["key": context.flagKey, "kind": "\(context.kind)"]
            return nil
        }

        func finally(_ context: HookContext, details: FlagEvaluationDetails<FlagValue>, hints: HookHints) {
            guard let span = context.hookData["span", as: Span.self],
                let started = context.hookData["started", as: ContinuousClock.Instant.self]
            else { return }
            span.ended.store(true, ordering: .relaxed)
            #expect(context.hookData["attributes", as: [String: String].self]?["key"] == context.flagKey)
            #expect(context.hookData["missing"] == nil)
            let wrongType = context.hookData["started", as: Int.self]
            finished.withLock { $0.append((span, ContinuousClock.now - started, wrongType)) }
        }
    }

    @Test("4.6.1: hook data holds any value (an object such as a span, an instant, a structure), read back by type")
    func hookDataHoldsObjects() async {
        let api = OpenFeatureAPI()
        await api.setProvider(InMemoryFlagProvider(["f": true]))
        let hook = TracingHook()
        _ = api.client(hooks: [hook]).boolean("f", default: false)
        let finished = hook.finished.withLock { $0 }
        #expect(finished.count == 1)
        #expect(finished.first?.span.name == "flag f", "the same object, stored at before, read at finally")
        #expect(finished.first?.span.ended.load(ordering: .relaxed) == true)
        #expect((finished.first?.elapsed ?? .seconds(-1)) >= .zero)
        #expect(finished.first?.wrongType == nil, "read as another type: nil, not a conversion")
    }

    @Test("1.7.8, 5.1.5: an error event carries its error code")
    func errorEventCode() async {
        let api = OpenFeatureAPI()
        var events = api.events().makeAsyncIterator()
        _ = await events.next()  // the no-op provider's ready state
        await api.setProvider(FailingProvider(fatal: true))
        let fatal = await events.next()
        #expect(fatal?.kind == .error && fatal?.errorCode == .providerFatal)
        await api.setProvider(FailingProvider(fatal: false))
        let transient = await events.next()
        #expect(transient?.kind == .error && transient?.errorCode == .general)
        #expect(ProviderEvent(.error, isFatal: true).errorCode == .providerFatal)
        #expect(ProviderEvent(.error, errorCode: .parseError).description.contains("PARSE_ERROR"))
    }

    struct FailingProvider: DefaultAnsweringProvider {
        let fatal: Bool
        var metadata: ProviderMetadata { ProviderMetadata(name: fatal ? "fatal" : "failing") }
        func initialize(context: FlagEvaluationContext) async throws {
            throw ProviderError("cannot start", isFatal: fatal)
        }
    }

    @Test("1.6.1, 1.6.2: shutdown shuts providers down, ends every event stream, and leaves clients NOT_READY")
    func shutdownResets() async {
        let api = OpenFeatureAPI()
        let provider = InMemoryFlagProvider(["f": true])
        await api.setProvider(provider)
        api.addHooks([CountingHook()])
        api.setEvaluationContext(FlagEvaluationContext(targetingKey: "global"))
        let client = api.client()
        let events = client.events()
        await api.shutdown()
        // The stream handed out before the shutdown ends: its loop finishes.
        var kinds: [ProviderEvent.Kind] = []
        for await event in events { kinds.append(event.kind) }
        #expect(kinds == [.ready])
        #expect(client.providerStatus == .notReady)
        let details = client.booleanDetails("f", default: false)
        #expect(details.errorCode == .providerNotReady && details.value == false)
        #expect(api.evaluationContext.targetingKey == nil)
        // A provider set afterwards serves again.
        await api.setProvider(InMemoryFlagProvider(["f": true]))
        #expect(client.boolean("f", default: false) == true)
    }

    /// A propagator that always answers with one context and counts how often it is asked.
    final class FixedPropagator: TransactionContextPropagator {
        let asked = Atomic<Int>(0)
        func currentContext() -> FlagEvaluationContext? {
            asked.add(1, ordering: .relaxed)
            return FlagEvaluationContext(targetingKey: "from-the-propagator")
        }
        func withContext<Result>(
            _ context: FlagEvaluationContext, isolation: isolated (any Actor)?, operation: () async throws -> Result
        ) async rethrows -> Result { try await operation() }
        func withContext<Result>(_ context: FlagEvaluationContext, operation: () throws -> Result) rethrows -> Result {
            try operation()
        }
    }

    @Test("1.6.2: shutdown resets the transaction context propagator too; it is never asked again")
    func shutdownResetsPropagator() async {
        let api = OpenFeatureAPI()
        let propagator = FixedPropagator()
        api.setTransactionContextPropagator(propagator)
        #expect(api.transactionContext?.targetingKey == "from-the-propagator")
        let before = propagator.asked.load(ordering: .relaxed)
        #expect(before == 1)
        await api.shutdown()
        await api.setProvider(InMemoryFlagProvider(["f": true]))
        #expect(api.transactionContext == nil, "the default propagator, outside any transaction")
        _ = api.client().booleanDetails("f", default: false)
        api.client().track("after shutdown")
        #expect(propagator.asked.load(ordering: .relaxed) == before, "asked after the API was reset")
        // The default propagator works as before.
        api.withTransactionContext(FlagEvaluationContext(targetingKey: "t")) {
            #expect(api.transactionContext?.targetingKey == "t")
        }
    }

    @Test("1.6.2: a provider still initializing when the API shut down does not touch the provider set after")
    func staleInitializationAfterShutdown() async {
        let api = OpenFeatureAPI()
        let slow = OpenFeatureClientTests.SlowProvider()
        let setting = Task { await api.setProvider(slow) }
        var entered = slow.entered.makeAsyncIterator()
        _ = await entered.next()
        await api.shutdown()
        await api.setProvider(InMemoryFlagProvider(["f": true]))
        #expect(api.providerStatus() == .ready)
        // The old provider's initialization now fails: it is no longer bound, so nothing changes.
        slow.releaseContinuation.yield(ProviderError("too late", isFatal: true))
        await setting.value
        #expect(api.providerStatus() == .ready)
        #expect(api.client().boolean("f", default: false) == true)
    }

    @Test("5.1.2, 5.1.3: a client's events follow its domain's binding as it changes")
    func eventsFollowBinding() async {
        let api = OpenFeatureAPI()
        let general = InMemoryFlagProvider(["f": true])
        await api.setProvider(general)
        let client = api.client(domain: "reports")
        var events = client.events().makeAsyncIterator()
        #expect(await events.next()?.providerName == "In-memory Provider")
        // Bound to the default provider for now: its changes reach the client.
        general.set("f", to: false)
        #expect(await events.next()?.flagsChanged == ["f"])
        // Once the domain has a provider of its own, the default's events no longer do...
        let own = InMemoryFlagProvider(["g": true])
        await api.setProvider(own, domain: "reports")
        general.set("f", to: true)
        own.set("g", to: false)
        var next = await events.next()
        // (the domain provider's ready event comes first)
        if next?.kind == .ready { next = await events.next() }
        #expect(next?.flagsChanged == ["g"], "the default provider's change did not reach the domain's client")
    }

    @Test("3.2.3, 3.3.1.1, 3.3.1.2.1: the transaction's context lies between the global and the client's")
    func transactionContext() async {
        let api = OpenFeatureAPI()
        let provider = ScriptedProvider()
        await api.setProvider(provider)
        api.setEvaluationContext(FlagEvaluationContext(attributes: ["level": "global", "global": true]))
        let client = api.client(context: FlagEvaluationContext(attributes: ["level": "client"]))
        #expect(api.transactionContext == nil)
        await api.withTransactionContext(
            FlagEvaluationContext(targetingKey: "user-7", attributes: ["level": "transaction", "transaction": true])
        ) {
            #expect(api.transactionContext?.targetingKey == "user-7")
            _ = client.boolean("f", default: false)
            // A child task sees it too.
            await Task { _ = client.boolean("f", default: false, context: .init(attributes: ["call": true])) }.value
        }
        let received = provider.received.withLock { $0 }
        #expect(received?.targetingKey == "user-7")
        #expect(received?.attributes["level"] == "client", "the client's context is above the transaction's")
        #expect(received?.attributes["transaction"] == true && received?.attributes["global"] == true)
        #expect(received?.attributes["call"] == true)
        // Outside the transaction, nothing of it remains.
        _ = client.boolean("f", default: false)
        #expect(provider.received.withLock { $0 }?.targetingKey == nil)
    }

    @Test("6.1.1.1, 6.1.3, 6.2.1, 6.2.2: track reaches the provider with the merged context and the details")
    func tracking() async {
        let api = OpenFeatureAPI()
        let provider = ScriptedProvider()
        await api.setProvider(provider)
        api.setEvaluationContext(FlagEvaluationContext(attributes: ["region": "eu"]))
        let client = api.client(context: FlagEvaluationContext(targetingKey: "user-1"))
        api.withTransactionContext(FlagEvaluationContext(attributes: ["request": "r-9"])) {
            client.track(
                "checkout", context: FlagEvaluationContext(attributes: ["page": "cart"]),
                details: TrackingEventDetails(value: 99.77, fields: ["currency": "EUR"]))
        }
        let tracked = provider.tracked.withLock { $0 }
        #expect(tracked.count == 1)
        #expect(tracked.first?.name == "checkout")
        #expect(tracked.first?.context?.targetingKey == "user-1")
        #expect(tracked.first?.context?.attributes == ["region": "eu", "request": "r-9", "page": "cart"])
        #expect(tracked.first?.details == TrackingEventDetails(value: 99.77, fields: ["currency": "EUR"]))
    }

    @Test("6.1.4: tracking with a provider that does not track is a no-op: no error, no evaluation")
    func trackingWithoutSupport() async {
        let api = OpenFeatureAPI()
        let provider = InMemoryFlagProvider(["f": true])
        await api.setProvider(provider)
        let client = api.client()
        client.track("checkout", details: TrackingEventDetails(value: 1))
        #expect(client.providerStatus == .ready)
        #expect(client.boolean("f", default: false) == true)
    }

    /// A provider that says its own READY (v0.9's providers emit their lifecycle events) and
    /// remembers the domain it was initialized for.
    final class AnnouncingProvider: DefaultAnsweringProvider {
        let domains = Lock<[String?]>([])
        let announcesDuringInitialization: Bool
        private let stream: AsyncStream<ProviderEvent>
        let continuation: AsyncStream<ProviderEvent>.Continuation

        init(announcesDuringInitialization: Bool) {
            self.announcesDuringInitialization = announcesDuringInitialization
            (stream, continuation) = AsyncStream.makeStream()
        }

        var metadata: ProviderMetadata { ProviderMetadata(name: "announcing") }
        func providerEvents() -> AsyncStream<ProviderEvent> { stream }

        func initialize(context: FlagEvaluationContext, domain: String?) async throws {
            domains.withLock { $0.append(domain) }
            if announcesDuringInitialization { continuation.yield(ProviderEvent(.ready)) }
        }

        func resolveBooleanEvaluation(_ key: String, default value: Bool, context: FlagEvaluationContext?)
            -> FlagEvaluationDetails<Bool>
        { .init(flagKey: key, value: true, reason: .static) }
    }

    @Test("1.1.2.2, 2.4.1: initialize is told the domain the provider is bound to")
    func initializeGetsDomain() async {
        let api = OpenFeatureAPI()
        let general = AnnouncingProvider(announcesDuringInitialization: false)
        let reports = AnnouncingProvider(announcesDuringInitialization: false)
        await api.setProvider(general)
        await api.setProvider(reports, domain: "reports")
        #expect(general.domains.withLock { $0 } == [nil])
        #expect(reports.domains.withLock { $0 } == ["reports"])
    }

    @Test(
        "5.3.1: handlers hear one READY per initialization, whether the provider announces it or the API does",
        arguments: [true, false])
    func oneReady(providerAnnounces: Bool) async {
        let api = OpenFeatureAPI()
        var events = api.events().makeAsyncIterator()
        #expect(await events.next()?.providerName == "No-op Provider")
        let provider = AnnouncingProvider(announcesDuringInitialization: providerAnnounces)
        await api.setProvider(provider)
        let ready = await events.next()
        #expect(ready?.kind == .ready && ready?.providerName == "announcing")
        // The provider's next news comes after whatever it said before: a second READY would be here.
        provider.continuation.yield(ProviderEvent(.configurationChanged, flagsChanged: ["f"]))
        #expect(await events.next()?.kind == .configurationChanged)
        #expect(api.providerStatus() == .ready)
    }

    @Test("1.8.4: one provider instance is not registered with two API instances")
    func oneAPIPerProvider() async {
        let first = OpenFeatureAPI()
        let second = OpenFeatureAPI()
        let provider = InMemoryFlagProvider(["f": true])
        await first.setProvider(provider)
        var events = second.events().makeAsyncIterator()
        _ = await events.next()  // the no-op provider's state
        await second.setProvider(provider)
        let refusal = await events.next()
        #expect(refusal?.kind == .error && refusal?.errorCode == .general)
        #expect(refusal?.message?.contains("another OpenFeature API instance") == true)
        #expect(second.provider().metadata.name == "No-op Provider", "the second API kept what it had")
        #expect(second.client().boolean("f", default: false) == false)
        // Once the first lets go of it, the second may take it.
        await first.shutdown()
        await second.setProvider(provider)
        #expect(second.client().boolean("f", default: false) == true)
    }

    @Test(
        "1.8.1, 1.8.2, 1.8.3: the factory of OpenFeatureIsolation makes instances that keep providers, contexts, hooks and events apart"
    )
    func isolatedInstances() async {
        let first = makeIsolatedOpenFeatureAPI()
        let second = makeIsolatedOpenFeatureAPI()
        await first.setProvider(InMemoryFlagProvider(["f": true]))
        first.setEvaluationContext(FlagEvaluationContext(targetingKey: "first"))
        first.addHooks([CountingHook()])
        #expect(first.client().boolean("f", default: false) == true)
        #expect(second.client().boolean("f", default: false) == false)
        #expect(second.evaluationContext.targetingKey == nil)
        #expect(second.provider().metadata.name == "No-op Provider")
        #expect(OpenFeatureAPI.shared !== first && first !== second)
        // Events too: the second hears nothing of the first's provider.
        var secondEvents = second.events().makeAsyncIterator()
        #expect(await secondEvents.next()?.providerName == "No-op Provider")
        let changing = InMemoryFlagProvider(["g": true])
        await first.setProvider(changing, domain: "reports")
        changing.set("g", to: false)
        await second.setProvider(ScriptedProvider(name: "second's"))
        #expect(await secondEvents.next()?.providerName == "second's", "nothing of the first's came before")
        #expect(second.provider(domain: "reports").metadata.name == "second's", "its own default, no domain binding")
    }
}

/// The scenarios of OpenFeature's `tracking.feature` (specification/assets/gherkin).
@Suite("OpenFeature gherkin: tracking")
struct TrackingFeatureTests {
    /// "Given a provider is registered"
    static func registered() async -> (FlagClient, OpenFeatureSpecificationTests.ScriptedProvider) {
        let api = OpenFeatureAPI()
        let provider = OpenFeatureSpecificationTests.ScriptedProvider(name: "tracking")
        await api.setProvider(provider)
        return (api.client(), provider)
    }

    @Test("Invalid event names: nothing is tracked, and the tracking operation errors")
    func invalidName() async {
        let (client, provider) = await Self.registered()
        // The feature's other example, a null name, cannot be written: `eventName` is a String.
        #expect(throws: TrackingError.self) { try client.trackOrThrow("") }
        do {
            try client.trackOrThrow("")
        } catch {
            #expect(error.description.contains("name"))
        }
        #expect(provider.tracked.withLock { $0 }.isEmpty)
    }

    @Test("Provider's track functionality is called")
    func providerCalled() async throws {
        let (client, provider) = await Self.registered()
        try client.trackOrThrow("the-event")
        client.track("the-other-event")
        #expect(provider.tracked.withLock { $0.map(\.name) } == ["the-event", "the-other-event"])
    }

    @Test("6.1.1.1: track returns nothing; an event it could not pass on is logged with its name and why")
    func refusalsLogged() async {
        let api = OpenFeatureAPI()
        let capture = LogCapture()
        api.logger = capture.logger(level: .warning)
        let provider = OpenFeatureSpecificationTests.ScriptedProvider(name: "tracking")
        await api.setProvider(provider)
        let client = api.client(domain: "shop")
        // `track`'s type is the requirement's: it returns nothing (a Void function, not a discardable result).
        let track: (String, FlagEvaluationContext?, TrackingEventDetails?) -> Void = client.track
        track("checkout", nil, nil)
        #expect(capture.messages(at: .warning).isEmpty, "an event passed on is not logged")
        track("", nil, nil)
        await api.shutdown()
        track("after shutdown", nil, nil)
        let logged = capture.messages(at: .warning)
        #expect(logged.count == 2)
        #expect(logged.first?.contains("tracking event '' was not passed on: a tracking event needs a name") == true)
        #expect(logged.last?.contains("tracking event 'after shutdown' was not passed on") == true)
        #expect(logged.last?.contains("not ready") == true)
        #expect(provider.tracked.withLock { $0.map(\.name) } == ["checkout"])
    }

    @Test("6.1: tracking while the provider is not ready is refused, not passed on")
    func notReady() async {
        let api = OpenFeatureAPI()
        await api.shutdown()
        do {
            try api.client().trackOrThrow("early")
            Issue.record("tracking with no ready provider succeeded")
        } catch {
            #expect(error.description.contains("not ready"))
        }
    }
}
