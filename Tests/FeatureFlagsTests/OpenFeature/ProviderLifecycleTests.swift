import FeatureFlags
import Locking
import TestSupport
import Testing

/// OpenFeature v0.9's provider status (2.8) and its migration (appendix E): a provider that says
/// so announces its own lifecycle, and the API takes its state from those events alone; one that
/// does not is announced for, once.
@Suite("OpenFeature 2.8: providers announce their lifecycle", .timeLimit(.minutes(2)))
struct ProviderLifecycleTests {
    /// A provider that announces its lifecycle as the test scripts it, then returns or throws.
    final class ScriptedLifecycleProvider: DefaultAnsweringProvider {
        let announcement: ProviderEvent?
        let throwsError: Bool
        let (stream, continuation) = AsyncStream.makeStream(of: ProviderEvent.self)
        /// Yields once `initialize` is done announcing, just before it returns or throws.
        let (finishing, finishingContinuation) = AsyncStream.makeStream(of: Void.self)

        init(announcing announcement: ProviderEvent?, throwing throwsError: Bool = false) {
            self.announcement = announcement
            self.throwsError = throwsError
        }

        var metadata: ProviderMetadata { ProviderMetadata(name: "scripted lifecycle") }
        var emitsLifecycleEvents: Bool { true }
        func providerEvents() -> AsyncStream<ProviderEvent> { stream }

        func initialize(context: FlagEvaluationContext) async throws {
            if let announcement { continuation.yield(announcement) }
            finishingContinuation.yield()
            if throwsError { throw ProviderError("cannot start") }
        }
    }

    /// The API's events after the no-op provider's state, which every new API reports first.
    private func events(of api: OpenFeatureAPI) async -> AsyncStream<ProviderEvent>.AsyncIterator {
        var events = api.events().makeAsyncIterator()
        let initial = await events.next()
        #expect(initial?.providerName == "No-op Provider")
        return events
    }

    @Test("2.8.2, 5.3.1: the provider's own READY is the one handlers hear, once, and setProvider returns after it")
    func providersOwnReady() async {
        let api = OpenFeatureAPI()
        var events = await events(of: api)
        let provider = ScriptedLifecycleProvider(announcing: ProviderEvent(.ready, message: "the provider's own"))
        await api.setProvider(provider)
        #expect(api.providerStatus() == .ready)
        let ready = await events.next()
        #expect(ready?.kind == .ready && ready?.message == "the provider's own", "not one the API made up")
        // Whatever the provider says next comes next: a second READY would be here.
        provider.continuation.yield(ProviderEvent(.configurationChanged, flagsChanged: ["f"]))
        #expect(await events.next()?.kind == .configurationChanged)
    }

    @Test("2.8.1, appendix E: initialize returning is no READY: a provider that said ERROR and returned is in ERROR")
    func returnIsOnlyASignal() async {
        let api = OpenFeatureAPI()
        var events = await events(of: api)
        let provider = ScriptedLifecycleProvider(announcing: ProviderEvent(.error, message: "half started"))
        await api.setProvider(provider)
        #expect(api.providerStatus() == .error)
        let error = await events.next()
        #expect(error?.kind == .error && error?.message == "half started")
        provider.continuation.yield(ProviderEvent(.configurationChanged, flagsChanged: ["f"]))
        #expect(await events.next()?.kind == .configurationChanged, "the API announced no READY of its own")
    }

    @Test("2.8.3: an ERROR with PROVIDER_FATAL before initialize throws: FATAL, one event, evaluations PROVIDER_FATAL")
    func fatalError() async {
        let api = OpenFeatureAPI()
        var events = await events(of: api)
        let provider = ScriptedLifecycleProvider(
            announcing: ProviderEvent(.error, message: "revoked", errorCode: .providerFatal), throwing: true)
        await api.setProvider(provider)
        #expect(api.providerStatus() == .fatal, "the error code says fatal, without isFatal")
        let error = await events.next()
        #expect(error?.kind == .error && error?.errorCode == .providerFatal && error?.message == "revoked")
        #expect(api.client().booleanDetails("f", default: true).errorCode == .providerFatal)
        provider.continuation.yield(ProviderEvent(.configurationChanged, flagsChanged: ["f"]))
        #expect(await events.next()?.kind == .configurationChanged, "the API announced no ERROR of its own")
    }

    @Test("2.8.1: until the provider's event arrives, its clients are NOT_READY and setProvider waits for it")
    func waitsForTheEvent() async {
        let api = OpenFeatureAPI()
        var events = await events(of: api)
        let provider = ScriptedLifecycleProvider(announcing: nil)
        let setting = Task { await api.setProvider(provider) }
        var finishing = provider.finishing.makeAsyncIterator()
        await finishing.next()
        // initialize has returned (or is about to), and the provider has said nothing.
        #expect(api.providerStatus() == .notReady)
        #expect(api.client().booleanDetails("f", default: true).errorCode == .providerNotReady)
        provider.continuation.yield(ProviderEvent(.ready, message: "late"))
        await setting.value
        #expect(api.providerStatus() == .ready)
        #expect(await events.next()?.message == "late")
    }

    @Test(
        "setProvider stops waiting for a provider that never announces once it is replaced, or its events end",
        arguments: [true, false])
    func silentProviderDoesNotHang(replaced: Bool) async {
        let api = OpenFeatureAPI()
        let silent = ScriptedLifecycleProvider(announcing: nil)
        let setting = Task { await api.setProvider(silent) }
        var finishing = silent.finishing.makeAsyncIterator()
        await finishing.next()
        if replaced {
            await api.setProvider(InMemoryFlagProvider(["f": true]))
            await setting.value
            #expect(api.client().boolean("f", default: false) == true)
        } else {
            silent.continuation.finish()
            await setting.value
            #expect(api.providerStatus() == .notReady, "no event, no state: the gate stays closed")
        }
    }

    @Test("appendix E, 2.8.5: a provider that does not announce is announced for: one READY, or one ERROR")
    func legacyProviders() async {
        struct Quiet: DefaultAnsweringProvider {
            var metadata: ProviderMetadata { ProviderMetadata(name: "quiet") }
        }
        let api = OpenFeatureAPI()
        var events = await events(of: api)
        #expect(Quiet().emitsLifecycleEvents == false)
        await api.setProvider(Quiet())
        #expect(api.providerStatus() == .ready)
        let ready = await events.next()
        #expect(ready?.kind == .ready && ready?.providerName == "quiet")
        await api.setProvider(OpenFeatureSpecificationTests.FailingProvider(fatal: false))
        #expect(api.providerStatus() == .error)
        #expect(await events.next()?.kind == .error)
    }

    @Test("2.8.2: the in-memory provider announces READY before initialize returns")
    func inMemoryAnnounces() async throws {
        let provider = InMemoryFlagProvider(["f": true])
        #expect(provider.emitsLifecycleEvents)
        var events = provider.providerEvents().makeAsyncIterator()
        try await provider.initialize(context: FlagEvaluationContext())
        #expect(await events.next()?.kind == .ready)
    }

    @Test("2.8.2, 2.8.3: a flag store announces READY, or the ERROR of a file it cannot read, before initialize ends")
    func flagStoreAnnounces() async throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write(toggleFile("f", on: true), to: "flags.json")
        let store = FlagStore(files: [file], watchesFiles: false, context: FlagEvaluationContext())
        #expect(store.emitsLifecycleEvents)
        var storeEvents = store.providerEvents().makeAsyncIterator()
        try await store.initialize(context: FlagEvaluationContext())
        #expect(await storeEvents.next()?.kind == .ready)

        let missing = FlagStore(
            files: [directory.path + "/missing.json"], watchesFiles: false, context: FlagEvaluationContext())
        var missingEvents = missing.providerEvents().makeAsyncIterator()
        await #expect(throws: ProviderError.self) { try await missing.initialize(context: FlagEvaluationContext()) }
        let error = await missingEvents.next()
        #expect(error?.kind == .error && error?.errorCode == .general)
        #expect(error?.message?.contains("missing.json") == true)

        // Through the API: one event each, the store's own.
        let api = OpenFeatureAPI()
        var apiEvents = await events(of: api)
        await api.setProvider(missing)
        #expect(api.providerStatus() == .error)
        #expect(await apiEvents.next()?.kind == .error)
        await api.setProvider(store)
        #expect(api.providerStatus() == .ready)
        #expect(await apiEvents.next()?.kind == .ready, "the next event is the new store's, not a second ERROR")
    }
}
