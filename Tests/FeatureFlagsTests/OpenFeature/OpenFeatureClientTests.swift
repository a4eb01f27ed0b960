import FeatureFlags
import Locking
import ProcedureCore
import TestSupport
import Testing

/// OpenFeature's evaluation API as its specification describes it: context merging (3.2), hooks
/// (4), provider states and events (1.7, 5), domains (1.1).
@Suite("OpenFeature client")
struct OpenFeatureClientTests {
    /// Records every hook call as "name.stage", and can throw or add context.
    final class RecordingHook: FlagHook {
        let name: String
        let log: Log
        let adds: FlagEvaluationContext?
        let throwsIn: String?

        init(_ name: String, _ log: Log, adds: FlagEvaluationContext? = nil, throwsIn: String? = nil) {
            self.name = name
            self.log = log
            self.adds = adds
            self.throwsIn = throwsIn
        }

        struct Thrown: Error {}

        func before(_ context: HookContext, hints: HookHints) throws -> FlagEvaluationContext? {
            log.append("\(name).before")
            if throwsIn == "before" { throw Thrown() }
            return adds
        }

        func after(_ context: HookContext, details: FlagEvaluationDetails<FlagValue>, hints: HookHints) throws {
            log.append("\(name).after")
            if throwsIn == "after" { throw Thrown() }
        }

        func error(_ context: HookContext, error: any Error, hints: HookHints) {
            log.append("\(name).error(\(error))")
        }

        func finally(_ context: HookContext, details: FlagEvaluationDetails<FlagValue>, hints: HookHints) {
            log.append("\(name).finally(\(details.reason)\(details.errorCode.map { " \($0)" } ?? ""))")
        }
    }

    final class Log: Sendable {
        private let entries = Lock<[String]>([])
        func append(_ entry: String) { entries.withLock { $0.append(entry) } }
        var all: [String] { entries.withLock { $0 } }
    }

    /// A provider that answers with the `answer` attribute of the context it receives, and
    /// remembers that context.
    final class EchoProvider: FeatureProvider {
        let received = Lock<FlagEvaluationContext?>(nil)
        let providerHooks: [any FlagHook]
        let shutdowns = Lock(0)

        init(hooks: [any FlagHook] = []) { providerHooks = hooks }

        var metadata: ProviderMetadata { ProviderMetadata(name: "echo") }
        var hooks: [any FlagHook] { providerHooks }
        func shutdown() async { shutdowns.withLock { $0 += 1 } }

        private func answer<T>(_ key: String, _ value: T, _ context: FlagEvaluationContext?, _ read: (FlagValue) -> T?)
            -> FlagEvaluationDetails<T>
        {
            received.withLock { $0 = context }
            if key == "broken" {
                return FlagEvaluationDetails(
                    flagKey: key, value: value, reason: .error, errorCode: .parseError,
                    errorMessage: "broken on purpose")
            }
            guard let found = context?.attributes["answer"].flatMap(read) else {
                return FlagEvaluationDetails(flagKey: key, value: value, reason: .default)
            }
            return FlagEvaluationDetails(flagKey: key, value: found, variant: "answer", reason: .targetingMatch)
        }

        func resolveBooleanEvaluation(_ key: String, default value: Bool, context: FlagEvaluationContext?)
            -> FlagEvaluationDetails<Bool>
        { answer(key, value, context, \.boolValue) }
        func resolveStringEvaluation(_ key: String, default value: String, context: FlagEvaluationContext?)
            -> FlagEvaluationDetails<String>
        { answer(key, value, context, \.stringValue) }
        func resolveIntegerEvaluation(_ key: String, default value: Int, context: FlagEvaluationContext?)
            -> FlagEvaluationDetails<Int>
        { answer(key, value, context, \.integerValue) }
        func resolveDoubleEvaluation(_ key: String, default value: Double, context: FlagEvaluationContext?)
            -> FlagEvaluationDetails<Double>
        { answer(key, value, context, \.numberValue) }
        func resolveObjectEvaluation(_ key: String, default value: FlagValue, context: FlagEvaluationContext?)
            -> FlagEvaluationDetails<FlagValue>
        { answer(key, value, context) { $0 } }
    }

    @Test(
        "3.2.1.1, 3.2.3: context: global, then client, then call, then before hooks; later levels win, targeting key too"
    )
    func contextMerging() async {
        let api = OpenFeatureAPI()
        let provider = EchoProvider()
        await api.setProvider(provider)
        api.setEvaluationContext(
            FlagEvaluationContext(
                targetingKey: "global", attributes: ["a": "global", "b": "global", "c": "global", "d": "global"]))
        let client = api.client(
            context: FlagEvaluationContext(
                targetingKey: "client", attributes: ["b": "client", "c": "client", "d": "client"]))
        let hook = RecordingHook(
            "h", Log(), adds: FlagEvaluationContext(attributes: ["d": "hook", "answer": "from the hook"]))
        let details = client.stringDetails(
            "f", default: "none",
            context: FlagEvaluationContext(targetingKey: "call", attributes: ["c": "call", "d": "call"]),
            options: FlagEvaluationOptions(hooks: [hook]))
        #expect(details.value == "from the hook")
        let seen = provider.received.withLock { $0 }
        #expect(seen?.targetingKey == "call")
        #expect(
            seen?.attributes == ["a": "global", "b": "client", "c": "call", "d": "hook", "answer": "from the hook"])

        _ = api.client().booleanDetails("f", default: false)
        #expect(provider.received.withLock { $0 }?.targetingKey == "global")
    }

    @Test(
        "1.5.1, 2.3.1, 4.3.6, 4.3.8, 4.4.1, 4.4.2: hooks run before API, client, call, provider; after, error and finally in reverse"
    )
    func hookOrder() async {
        let api = OpenFeatureAPI()
        let log = Log()
        await api.setProvider(EchoProvider(hooks: [RecordingHook("provider", log)]))
        api.addHooks([RecordingHook("api", log)])
        let client = api.client(hooks: [RecordingHook("client", log)])
        let details = client.booleanDetails(
            "f", default: false, context: FlagEvaluationContext(attributes: ["answer": true]),
            options: FlagEvaluationOptions(hooks: [RecordingHook("call", log)]))
        #expect(details.value == true)
        #expect(
            log.all == [
                "api.before", "client.before", "call.before", "provider.before",
                "provider.after", "call.after", "client.after", "api.after",
                "provider.finally(TARGETING_MATCH)", "call.finally(TARGETING_MATCH)", "client.finally(TARGETING_MATCH)",
                "api.finally(TARGETING_MATCH)",
            ])
    }

    @Test(
        "4.3.7, 4.4.5, 4.4.6, 4.4.7: a before hook that throws: no further before hooks, no provider, the default with GENERAL, error and finally hooks"
    )
    func beforeHookThrows() async {
        let api = OpenFeatureAPI()
        let log = Log()
        let provider = EchoProvider()
        await api.setProvider(provider)
        let client = api.client(hooks: [RecordingHook("first", log, throwsIn: "before"), RecordingHook("second", log)])
        let details = client.booleanDetails(
            "f", default: true, context: FlagEvaluationContext(attributes: ["answer": false]))
        #expect(details.value == true)
        #expect(details.reason == .error)
        #expect(details.errorCode == .general)
        #expect(provider.received.withLock { $0 } == nil)
        #expect(log.all.first == "first.before")
        #expect(!log.all.contains("second.before"))
        #expect(log.all.filter { $0.contains(".error(before hook failed") }.count == 2)
        #expect(log.all.suffix(2) == ["second.finally(ERROR GENERAL)", "first.finally(ERROR GENERAL)"])
    }

    @Test("4.4.5, 4.4.6: an after hook that throws turns the evaluation into the default with GENERAL")
    func afterHookThrows() async {
        let api = OpenFeatureAPI()
        let log = Log()
        await api.setProvider(EchoProvider())
        let client = api.client(hooks: [RecordingHook("outer", log), RecordingHook("inner", log, throwsIn: "after")])
        let details = client.integerDetails("f", default: 7, context: FlagEvaluationContext(attributes: ["answer": 3]))
        #expect(details.value == 7)
        #expect(details.errorCode == .general)
        #expect(!log.all.contains("outer.after"))
        #expect(log.all.contains { $0.hasPrefix("outer.error(after hook failed") })
    }

    @Test("4.3.7: a provider's error code runs the error hooks instead of the after hooks")
    func providerError() async {
        let api = OpenFeatureAPI()
        let log = Log()
        await api.setProvider(EchoProvider())
        let details = api.client(hooks: [RecordingHook("h", log)]).stringDetails("broken", default: "safe")
        #expect(details.value == "safe")
        #expect(details.errorCode == .parseError)
        #expect(log.all == ["h.before", "h.error(PARSE_ERROR: broken on purpose)", "h.finally(ERROR PARSE_ERROR)"])
    }

    /// A provider whose initialization waits until the test lets it finish, or fails.
    final class SlowProvider: DefaultAnsweringProvider {
        let entered: AsyncStream<Void>
        private let enteredContinuation: AsyncStream<Void>.Continuation
        let release: AsyncStream<ProviderError?>
        let releaseContinuation: AsyncStream<ProviderError?>.Continuation

        init() {
            (entered, enteredContinuation) = AsyncStream.makeStream()
            (release, releaseContinuation) = AsyncStream.makeStream()
        }

        var metadata: ProviderMetadata { ProviderMetadata(name: "slow") }

        func initialize(context: FlagEvaluationContext) async throws {
            enteredContinuation.yield()
            for await outcome in release {
                if let outcome { throw outcome }
                return
            }
        }

        func resolveBooleanEvaluation(_ key: String, default value: Bool, context: FlagEvaluationContext?)
            -> FlagEvaluationDetails<Bool>
        {
            FlagEvaluationDetails(flagKey: key, value: true, variant: "on", reason: .static)
        }
    }

    @Test(
        "1.1.2.1, 1.1.2.4, 1.7.1, 1.7.6, 5.3.3: PROVIDER_NOT_READY while initializing, READY after, the ready event first for late subscribers"
    )
    func notReadyThenReady() async {
        let api = OpenFeatureAPI()
        let provider = SlowProvider()
        let client = api.client()
        let setting = Task { await api.setProvider(provider) }
        var entered = provider.entered.makeAsyncIterator()
        _ = await entered.next()
        #expect(client.providerStatus == .notReady)
        let early = client.booleanDetails("f", default: false)
        #expect(early.errorCode == .providerNotReady)
        #expect(early.value == false)
        provider.releaseContinuation.yield(nil)
        await setting.value
        #expect(client.providerStatus == .ready)
        #expect(client.boolean("f", default: false) == true)
        var events = client.events().makeAsyncIterator()
        let first = await events.next()
        #expect(first?.kind == .ready)
        #expect(first?.providerName == "slow")
    }

    @Test(
        "1.7.4, 1.7.5, 5.3.2: a provider that fails to initialize is ERROR (still asked) or FATAL (PROVIDER_FATAL)",
        arguments: [false, true])
    func failedInitialization(fatal: Bool) async {
        let api = OpenFeatureAPI()
        let provider = SlowProvider()
        var events = api.events().makeAsyncIterator()
        provider.releaseContinuation.yield(ProviderError("no backend", isFatal: fatal))
        await api.setProvider(provider)
        #expect(api.providerStatus() == (fatal ? .fatal : .error))
        // The no-op provider in place before was ready: a new subscriber hears that first.
        let before = await events.next()
        #expect(before?.kind == .ready)
        #expect(before?.providerName == "No-op Provider")
        let event = await events.next()
        #expect(event?.providerName == "slow")
        #expect(event?.kind == .error)
        #expect(event?.isFatal == fatal)
        #expect(event?.message == "no backend")
        let details = api.client().booleanDetails("f", default: false)
        #expect(details.errorCode == (fatal ? .providerFatal : nil))
        #expect(details.value == !fatal)
    }

    @Test(
        "1.1.2.3, 1.1.3, 5.1.2: configuration changes reach the client; domains get their own provider; a replaced provider is shut down"
    )
    func eventsAndDomains() async {
        let api = OpenFeatureAPI()
        let memory = InMemoryFlagProvider(["f": true])
        await api.setProvider(memory)
        let client = api.client()
        var events = client.events().makeAsyncIterator()
        #expect(await events.next()?.kind == .ready)
        memory.set("f", to: false)
        let changed = await events.next()
        #expect(changed?.kind == .configurationChanged)
        #expect(changed?.flagsChanged == ["f"])
        #expect(client.boolean("f", default: true) == false)

        let echo = EchoProvider()
        await api.setProvider(echo, domain: "reports")
        #expect(api.client(domain: "reports").stringDetails("f", default: "x").reason == .default)
        #expect(api.client(domain: "elsewhere").booleanDetails("f", default: true).value == false)
        #expect(api.provider(domain: "reports").metadata.name == "echo")
        await api.setProvider(InMemoryFlagProvider(), domain: "reports")
        #expect(echo.shutdowns.withLock { $0 } == 1)
    }

    @Test("InMemoryFlagProvider: values, FLAG_NOT_FOUND, TYPE_MISMATCH and set failures")
    func inMemoryProvider() async {
        let api = OpenFeatureAPI()
        let memory = InMemoryFlagProvider(["on": true, "color": "blue", "limit": 3])
        memory.fail("broken", with: .parseError)
        await api.setProvider(memory)
        let client = api.client()
        #expect(client.booleanDetails("on", default: false).reason == .static)
        #expect(client.string("color", default: "") == "blue")
        #expect(client.integer("limit", default: 0) == 3)
        #expect(client.booleanDetails("nothing", default: false).errorCode == .flagNotFound)
        #expect(client.integerDetails("color", default: 0).errorCode == .typeMismatch)
        #expect(client.booleanDetails("broken", default: false).errorCode == .parseError)
    }

    @Test(
        "gates through a client fail closed: FlagIsOn on a flag that cannot be evaluated is undecided, and so is its negation"
    )
    func gatesThroughClient() async {
        let api = OpenFeatureAPI()
        let memory = InMemoryFlagProvider(["on": true, "tier": "gold"])
        memory.fail("broken", with: .parseError)
        await api.setProvider(memory)
        let client = api.client()
        #expect(await FlagIsOn("on", in: client).check(allowingInteraction: false).verdict == .satisfied)
        #expect(await FlagEquals("tier", "gold", in: client).check(allowingInteraction: false).verdict == .satisfied)
        #expect(await FlagEquals("tier", "iron", in: client).check(allowingInteraction: false).verdict == .failed)
        #expect(await FlagIsOn("broken", in: client).check(allowingInteraction: false).verdict == .undecided)
        #expect(await Negated(FlagIsOn("broken", in: client)).check(allowingInteraction: false).verdict == .undecided)
        #expect(await Negated(FlagIsOn("missing", in: client)).check(allowingInteraction: false).verdict == .undecided)
    }

    @Test(
        "a flag store as provider: reloads are configuration changes, a broken edit makes it stale, a fix ready again",
        .timeLimit(.minutes(2)))
    func flagStoreProvider() async throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write(toggleFile("f", on: false), to: "flags.json")
        let api = OpenFeatureAPI()
        await api.setProvider(FlagStore(files: [file], context: FlagEvaluationContext()))
        let client = api.client()
        #expect(client.providerStatus == .ready)
        var events = client.events().makeAsyncIterator()
        #expect(await events.next()?.kind == .ready)

        try directory.write(toggleFile("f", on: true), to: "flags.json")
        let changed = await events.next()
        #expect(changed?.kind == .configurationChanged)
        #expect(changed?.flagsChanged == ["f"])
        #expect(client.boolean("f", default: false) == true)

        try directory.write("{\"flags\": ", to: "flags.json")
        let stale = await events.next()
        #expect(stale?.kind == .stale)
        #expect(client.providerStatus == .stale)
        #expect(client.booleanDetails("f", default: false).value == true)

        try directory.write(toggleFile("f", on: false), to: "flags.json")
        #expect(await events.next()?.kind == .configurationChanged)
        #expect(await events.next()?.kind == .ready)
        #expect(client.providerStatus == .ready)
        #expect(client.boolean("f", default: true) == false)
    }

    @Test("5.3.5: an event of a kind this API does not know is passed on and changes no state")
    func unknownEventKind() async {
        let api = OpenFeatureAPI()
        let memory = InMemoryFlagProvider(["on": true])
        await api.setProvider(memory)
        let client = api.client()
        var events = client.events().makeAsyncIterator()
        #expect(await events.next()?.kind == .ready)
        // The client-side specification's reconciling event, which a server SDK has no state for.
        let reconciling = ProviderEvent.Kind(rawValue: "PROVIDER_RECONCILING")
        memory.send(ProviderEvent(reconciling))
        #expect(await events.next()?.kind == reconciling)
        #expect(client.providerStatus == .ready)
        #expect(client.boolean("on", default: false))
        #expect("\(ProviderStatus.notReady)" == "NOT_READY")
    }

    @Test("a flag store whose file cannot be read initializes in the error state and still serves the rest")
    func flagStoreInitializationError() async throws {
        let directory = try TemporaryDirectory()
        let good = try directory.write(toggleFile("f", on: true), to: "good.json")
        let api = OpenFeatureAPI()
        await api.setProvider(
            FlagStore(
                files: [good, directory.path + "/missing.json"], watchesFiles: false, context: FlagEvaluationContext()))
        #expect(api.providerStatus() == .error)
        #expect(api.client().boolean("f", default: false) == true)
    }

    /// Two flag files, flag "f" on in one and off in the other, in a directory kept while the test runs.
    static func onAndOff() throws -> (directory: TemporaryDirectory, on: String, off: String) {
        let directory = try TemporaryDirectory()
        let on = try directory.write(toggleFile("f", on: true), to: "on.json")
        return (directory, on, try directory.write(toggleFile("f", on: false), to: "off.json"))
    }

    @Test(
        "a client keeps what it read of the API only until something changes: a provider, a context or hooks set after an evaluation count for the next"
    )
    func keptPlanFollowsChanges() async throws {
        let (directory, on, off) = try Self.onAndOff()
        defer { withExtendedLifetime(directory) {} }
        let api = OpenFeatureAPI()
        let client = api.client()
        #expect(client.boolean("f", default: false) == false, "no provider yet: the caller's default")
        await api.setProvider(FlagStore(files: [on], watchesFiles: false))
        #expect(client.boolean("f", default: false) == true)
        await api.setProvider(FlagStore(files: [off], watchesFiles: false))
        #expect(client.boolean("f", default: true) == false, "the provider set after the last evaluation answers")

        let echo = EchoProvider()
        await api.setProvider(echo)
        _ = client.boolean("answer", default: false)
        api.setEvaluationContext(FlagEvaluationContext(attributes: ["level": "global"]))
        _ = client.boolean("answer", default: false)
        #expect(echo.received.withLock { $0?.attributes["level"] } == "global")
        client.setEvaluationContext(FlagEvaluationContext(attributes: ["level": "client"]))
        _ = client.boolean("answer", default: false)
        #expect(echo.received.withLock { $0?.attributes["level"] } == "client")

        let log = Log()
        api.addHooks([RecordingHook("api", log)])
        _ = client.boolean("answer", default: false)
        client.addHooks([RecordingHook("client", log)])
        _ = client.boolean("answer", default: false)
        #expect(log.all.filter { $0.hasSuffix(".before") } == ["api.before", "api.before", "client.before"])
    }

    @Test(
        "evaluations on many threads while the provider and the contexts change: no race (Scripts/sanitize thread runs this), and the last change wins"
    )
    func keptPlanUnderConcurrency() async throws {
        let (directory, on, off) = try Self.onAndOff()
        defer { withExtendedLifetime(directory) {} }
        let stores = [FlagStore(files: [on], watchesFiles: false), FlagStore(files: [off], watchesFiles: false)]
        let api = OpenFeatureAPI()
        await api.setProvider(stores[0])
        let client = api.client()
        let answers = await withTaskGroup(of: Set<Bool>.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    var seen = Set<Bool>()
                    for _ in 0..<2_000 { seen.insert(client.boolean("f", default: true)) }
                    return seen
                }
            }
            group.addTask {
                for round in 0..<50 {
                    await api.setProvider(stores[round % 2])
                    client.setEvaluationContext(FlagEvaluationContext(attributes: ["round": .number(Double(round))]))
                }
                return []
            }
            var all = Set<Bool>()
            for await seen in group { all.formUnion(seen) }
            return all
        }
        #expect(!answers.isEmpty, "the evaluating tasks ran")
        // Round 49 set the "off" store last.
        #expect(client.boolean("f", default: true) == false)
        #expect(client.booleanDetails("f", default: true).value == false)
    }

    @Test(
        "a static flag's value through a client without hooks is the one its details carry; a wrong type still comes back as TYPE_MISMATCH, logged"
    )
    func staticShortcut() async throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write(
            """
            {"flags": {
              "on": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "on"},
              "color": {"state": "ENABLED", "variants": {"red": "red"}, "defaultVariant": "red"},
              "off": {"state": "DISABLED", "variants": {"on": true}, "defaultVariant": "on"}
            }}
            """, to: "flags.json")
        let api = OpenFeatureAPI()
        let capture = LogCapture()
        api.logger = capture.logger(level: .warning)
        await api.setProvider(FlagStore(files: [file], watchesFiles: false))
        let client = api.client()
        #expect(client.boolean("on", default: false) == client.booleanDetails("on", default: false).value)
        #expect(client.string("color", default: "blue") == "red")
        #expect(client.boolean("off", default: false) == false, "disabled: the caller's default")
        #expect(capture.messages(at: .warning).isEmpty)
        #expect(client.integer("color", default: 7) == 7)
        #expect(client.integerDetails("color", default: 7).errorCode == .typeMismatch)
        let logged = capture.messages(at: .warning)
        #expect(logged.first?.contains("TYPE_MISMATCH") == true, "\(logged)")
    }

    @Test("reasons and error codes print as OpenFeature spells them")
    func spelling() {
        #expect("\(FlagEvaluationReason.targetingMatch)" == "TARGETING_MATCH")
        #expect("\(FlagErrorCode.typeMismatch)" == "TYPE_MISMATCH")
        #expect("\(ProviderStatus.notReady)" == "NOT_READY")
        #expect(
            FlagEvaluationDetails(flagKey: "f", value: 1, variant: "one", reason: .targetingMatch).description
                == "f = 1 (TARGETING_MATCH, variant one)")
    }
}
