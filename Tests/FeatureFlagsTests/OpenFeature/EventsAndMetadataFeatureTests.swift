import FeatureFlags
import Testing

/// The scenarios of OpenFeature's `events.feature` and `metadata.feature`
/// (specification/assets/gherkin).
@Suite("OpenFeature gherkin: events and metadata", .timeLimit(.minutes(2)))
struct EventsAndMetadataFeatureTests {
    /// "A provider which supports events and requires initialization".
    final class InitializingProvider: DefaultAnsweringProvider {
        let fails: Bool
        init(fails: Bool) { self.fails = fails }

        var metadata: ProviderMetadata { ProviderMetadata(name: "initializing") }
        func providerEvents() -> AsyncStream<ProviderEvent> { AsyncStream { _ in } }
        func initialize(context: FlagEvaluationContext) async throws {
            if fails { throw ProviderError("cannot reach the flag service") }
        }

    }

    /// The first event of `kind` from the provider named `provider`.
    static func first(
        _ kind: ProviderEvent.Kind, from provider: String, in events: AsyncStream<ProviderEvent>
    ) async -> ProviderEvent? {
        for await event in events where event.kind == kind && event.providerName == provider { return event }
        return nil
    }

    @Test("PROVIDER_READY is emitted")
    func readyEmitted() async {
        let api = OpenFeatureAPI()
        let handler = api.events()  // "a PROVIDER_READY handler is attached"
        await api.setProvider(InitializingProvider(fails: false))
        #expect(await Self.first(.ready, from: "initializing", in: handler) != nil)
    }

    @Test("PROVIDER_ERROR is emitted")
    func errorEmitted() async {
        let api = OpenFeatureAPI()
        let handler = api.events()
        await api.setProvider(InitializingProvider(fails: true))
        let event = await Self.first(.error, from: "initializing", in: handler)
        #expect(event?.message == "cannot reach the flag service")
    }

    @Test("PROVIDER_CONFIGURATION_CHANGED is emitted")
    func configurationChanged() async {
        let api = OpenFeatureAPI()
        let provider = InMemoryFlagProvider(["changing-flag": "foo"])
        await api.setProvider(provider)
        let handler = api.events()
        provider.set("changing-flag", to: "bar")
        let event = await Self.first(.configurationChanged, from: "In-memory Provider", in: handler)
        #expect(event?.flagsChanged == ["changing-flag"])
    }

    static let metadataFlags = """
        { "flags": {
            "metadata-flag": { "state": "ENABLED", "variants": { "on": true, "off": false }, "defaultVariant": "on",
                "metadata": { "string": "1.0.2", "integer": 2, "boolean": true, "float": 0.1 } },
            "boolean-flag": { "state": "ENABLED", "variants": { "on": true, "off": false }, "defaultVariant": "on" },
            "integer-flag": { "state": "ENABLED", "variants": { "one": 1, "ten": 10 }, "defaultVariant": "ten" },
            "float-flag": { "state": "ENABLED", "variants": { "tenth": 0.1, "half": 0.5 }, "defaultVariant": "half" },
            "string-flag": { "state": "ENABLED", "variants": { "greeting": "hi", "parting": "bye" },
                "defaultVariant": "greeting" }
        } }
        """

    @Test("Returns metadata")
    func returnsMetadata() async throws {
        let api = OpenFeatureAPI()
        await api.setProvider(try store(Self.metadataFlags))
        let details = api.client().booleanDetails("metadata-flag", default: true)
        #expect(details.flagMetadata["string"] == "1.0.2")
        #expect(details.flagMetadata["integer"]?.integerValue == 2)
        #expect(details.flagMetadata["float"]?.numberValue == 0.1)
        #expect(details.flagMetadata["boolean"] == true)
    }

    @Test("Returns no metadata", arguments: ["boolean-flag", "integer-flag", "float-flag", "string-flag"])
    func returnsNoMetadata(key: String) async throws {
        let api = OpenFeatureAPI()
        await api.setProvider(try store(Self.metadataFlags))
        let client = api.client()
        let metadata: [String: FlagValue] =
            switch key {
            case "boolean-flag": client.booleanDetails(key, default: true).flagMetadata
            case "integer-flag": client.integerDetails(key, default: 23).flagMetadata
            case "float-flag": client.doubleDetails(key, default: 2.3).flagMetadata
            default: client.stringDetails(key, default: "value").flagMetadata
            }
        #expect(metadata.isEmpty)
    }
}
