import FeatureFlags
import FlagService
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import OpenFeatureIsolation
import Synchronization
import Testing

/// The flag service over real requests (a live server on loopback): each request's flags are
/// targeted at its own user and tier, concurrent requests never see each other's context, an edit
/// of the flag file counts from the next request, settings come from the environment, and a
/// purchase reaches the provider as a tracking event.
@Suite("Flags per request in Hummingbird")
struct FlagServiceTests {
    /// A flag file in a directory of its own, removed at the end.
    final class FlagFile: Sendable {
        let directory: String
        var path: String { directory + "/flags.json" }

        init(_ text: String) throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("flag-service-\(UUID())").path
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try write(text)
        }

        func write(_ text: String) throws {
            // Written beside and renamed, as an editor or a deployment does: never read half-written.
            try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        }

        deinit { try? FileManager.default.removeItem(atPath: directory) }
    }

    /// The example's own flag file: `new-checkout` for the gold tier, and for a quarter of the users.
    static let exampleFlags = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("service-flags.json")

    /// The flag store's answers, wrapped to record what is tracked (a flag file has nowhere to send it).
    final class RecordingProvider: FeatureProvider {
        let store: FlagStore
        let tracked = Mutex<[(String, FlagEvaluationContext?)]>([])
        init(_ store: FlagStore) { self.store = store }
        var metadata: ProviderMetadata { store.metadata }
        func providerEvents() -> AsyncStream<ProviderEvent> { store.providerEvents() }
        func resolveBooleanEvaluation(_ key: String, default value: Bool, context: FlagEvaluationContext?)
            -> FlagEvaluationDetails<Bool>
        { store.resolveBooleanEvaluation(key, default: value, context: context) }
        func resolveStringEvaluation(_ key: String, default value: String, context: FlagEvaluationContext?)
            -> FlagEvaluationDetails<String>
        { store.resolveStringEvaluation(key, default: value, context: context) }
        func resolveIntegerEvaluation(_ key: String, default value: Int, context: FlagEvaluationContext?)
            -> FlagEvaluationDetails<Int>
        { store.resolveIntegerEvaluation(key, default: value, context: context) }
        func resolveDoubleEvaluation(_ key: String, default value: Double, context: FlagEvaluationContext?)
            -> FlagEvaluationDetails<Double>
        { store.resolveDoubleEvaluation(key, default: value, context: context) }
        func resolveObjectEvaluation(_ key: String, default value: FlagValue, context: FlagEvaluationContext?)
            -> FlagEvaluationDetails<FlagValue>
        { store.resolveObjectEvaluation(key, default: value, context: context) }
        func track(_ eventName: String, context: FlagEvaluationContext?, details: TrackingEventDetails?) {
            tracked.withLock { $0.append((eventName, context)) }
        }
    }

    static func service(flags: FlagStore, environment: [String: String] = [:]) async -> (
        OpenFeatureAPI, RecordingProvider
    ) {
        let api = makeIsolatedOpenFeatureAPI()
        api.setTransactionContextPropagator(ServiceContextTransactionContextPropagator())
        let provider = RecordingProvider(flags)
        await api.setProvider(provider)
        await api.setProvider(EnvironmentFlagProvider(environment: environment, prefix: "APP_"), domain: "env")
        return (api, provider)
    }

    static func checkout(_ client: some TestClientProtocol, user: String?, tier: String? = nil) async throws -> String {
        var headers = HTTPFields()
        if let user { headers[HTTPField.Name("X-User")!] = user }
        if let tier { headers[HTTPField.Name("X-Tier")!] = tier }
        return try await client.execute(uri: "/checkout", method: .get, headers: headers) { response in
            #expect(response.status == .ok)
            return String(buffer: response.body)
        }
    }

    @Test("each request's flags are targeted at its user and tier, as the flag file says")
    func perRequest() async throws {
        let flags = FlagStore(sources: [.file(Self.exampleFlags.path)], watchesFiles: false)
        #expect(flags.problems.isEmpty, "\(flags.problems)")
        let (api, _) = await Self.service(flags: flags)
        let users = (1...40).map { "user-\($0)" }
        let expected = users.map {
            flags.evaluation("new-checkout", default: false, context: FlagEvaluationContext(targetingKey: $0)).value
        }
        // The rollout splits these users, so an answer that ignored the user could not match them all.
        #expect(expected.contains(true) && expected.contains(false))
        let app = Application(router: FlagServiceRoutes.router(api: api))
        try await app.test(.live) { client in
            for (user, on) in zip(users, expected) {
                let answer = try await Self.checkout(client, user: user)
                #expect(answer == (on ? "new checkout\n" : "old checkout\n"), "\(user)")
            }
            let outside = users[expected.firstIndex(of: false)!]
            let gold = try await Self.checkout(client, user: outside, tier: "gold")
            #expect(gold == "new checkout\n")
            // No user: nothing to bucket by, the default variant.
            let anonymous = try await Self.checkout(client, user: nil)
            #expect(anonymous == "old checkout\n")
        }
    }

    @Test("concurrent requests each keep their own context")
    func concurrentRequests() async throws {
        let flags = try FlagStore(
            sources: [
                .flags(
                    FlagSet.parse(
                        #"{"flags": {"new-checkout": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off", "targeting": {"if": [{"==": [{"var": "targetingKey"}, "ann"]}, "on"]}}}}"#
                    ))
            ],
            watchesFiles: false)
        let (api, _) = await Self.service(flags: flags)
        let app = Application(router: FlagServiceRoutes.router(api: api))
        try await app.test(.live) { client in
            try await withThrowingTaskGroup(of: (String, String).self) { group in
                for index in 0..<60 {
                    let user = index.isMultiple(of: 2) ? "ann" : "bob"
                    group.addTask { (user, try await Self.checkout(client, user: user)) }
                }
                for try await (user, answer) in group {
                    #expect(answer == (user == "ann" ? "new checkout\n" : "old checkout\n"), "\(user)")
                }
            }
        }
    }

    @Test("an edit of the flag file counts from the next request, announced as a provider event")
    func edits() async throws {
        let file = try FlagFile(
            #"{"flags": {"new-checkout": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off"}}}"#
        )
        let flags = FlagStore(sources: [.file(file.path)])
        let (api, _) = await Self.service(flags: flags)
        let app = Application(router: FlagServiceRoutes.router(api: api))
        try await app.test(.live) { client in
            var events = api.events().makeAsyncIterator()
            let before = try await Self.checkout(client, user: "ann")
            #expect(before == "old checkout\n")
            try file.write(
                #"{"flags": {"new-checkout": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "on"}}}"#
            )
            while let event = await events.next(),
                !(event.kind == .configurationChanged && event.flagsChanged.contains("new-checkout"))
            {}
            let after = try await Self.checkout(client, user: "ann")
            #expect(after == "new checkout\n")
        }
    }

    @Test("settings from the environment, and a purchase tracked with the request's context")
    func environmentAndTracking() async throws {
        let flags = FlagStore(sources: [.file(Self.exampleFlags.path)], watchesFiles: false)
        let (api, provider) = await Self.service(flags: flags, environment: ["APP_PAGE_SIZE": "50"])
        let app = Application(router: FlagServiceRoutes.router(api: api))
        try await app.test(.live) { client in
            try await client.execute(uri: "/catalog", method: .get) { response in
                #expect(String(buffer: response.body) == "page size 50\n")
            }
            try await client.execute(
                uri: "/checkout/complete", method: .post, headers: [HTTPField.Name("X-User")!: "ann"]
            ) {
                #expect($0.status == .accepted)
            }
        }
        let tracked = provider.tracked.withLock { $0 }
        #expect(tracked.count == 1)
        #expect(tracked.first?.0 == "checkout-completed")
        #expect(tracked.first?.1?.targetingKey == "ann")
    }

    @Test("the example's flag file is valid and belongs to the flag set its selector names")
    func exampleFlagFile() throws {
        let flags = try FlagSet.load(contentsOf: Self.exampleFlags.path)
        #expect(flags.problems.isEmpty)
        let shop = FlagStore(
            sources: [.file(Self.exampleFlags.path)], watchesFiles: false, selector: try FlagSelector("flagSetId=shop"))
        #expect(shop.flags.keys.sorted() == ["new-checkout"])
    }
}
