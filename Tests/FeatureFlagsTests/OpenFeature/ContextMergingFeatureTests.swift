import FeatureFlags
import Testing

/// The scenarios of OpenFeature's `contextMerging.feature` (specification/assets/gherkin), with
/// both of its tags (`@Transaction`, `@Hooks`): every level this API has, in the order of
/// increasing precedence the feature gives (3.2.3).
@Suite("OpenFeature gherkin: context merging precedence")
struct ContextMergingFeatureTests {
    enum Level: String, CaseIterable, CustomTestStringConvertible {
        case api = "API"
        case transaction = "Transaction"
        case client = "Client"
        case invocation = "Invocation"
        case beforeHooks = "Before Hooks"

        var testDescription: String { rawValue }
    }

    /// Adds `context` to the evaluation as a `before` hook's return value.
    struct AddingHook: FlagHook {
        let context: FlagEvaluationContext
        func before(_ hookContext: HookContext, hints: HookHints) throws -> FlagEvaluationContext? { context }
    }

    /// "Given a stable provider with retrievable context is registered", the entries added to
    /// their levels, "When some flag was evaluated": the merged context the provider received.
    static func mergedContext(_ entries: [(level: Level, key: String, value: String)]) async -> FlagEvaluationContext {
        let api = OpenFeatureAPI()
        let provider = OpenFeatureSpecificationTests.ScriptedProvider(name: "retrievable context")
        await api.setProvider(provider)
        func context(at level: Level) -> FlagEvaluationContext {
            var attributes: [String: FlagValue] = [:]
            for entry in entries where entry.level == level { attributes[entry.key] = .string(entry.value) }
            return FlagEvaluationContext(attributes: attributes)
        }
        api.setEvaluationContext(context(at: .api))
        let client = api.client(context: context(at: .client))
        let options = FlagEvaluationOptions(hooks: [AddingHook(context: context(at: .beforeHooks))])
        api.withTransactionContext(context(at: .transaction)) {
            _ = client.boolean("some-flag", default: false, context: context(at: .invocation), options: options)
        }
        return provider.received.withLock { $0 } ?? FlagEvaluationContext()
    }

    @Test("A context entry is added to a single level", arguments: Level.allCases)
    func singleLevel(level: Level) async {
        let merged = await Self.mergedContext([(level, "key", "value")])
        #expect(merged.attributes["key"] == "value")
    }

    @Test("A context entry is added to each level with different keys")
    func eachLevel() async {
        let merged = await Self.mergedContext(Level.allCases.map { ($0, $0.rawValue, "\($0.rawValue) value") })
        for level in Level.allCases {
            #expect(merged.attributes[level.rawValue] == .string("\(level.rawValue) value"))
        }
    }

    @Test(
        "A context entry in one level overwrites values with the same key from preceding levels",
        arguments: Level.allCases)
    func overwrites(level: Level) async {
        let upTo = Level.allCases.prefix { $0 != level } + [level]
        let merged = await Self.mergedContext(upTo.map { ($0, "key", $0.rawValue) })
        #expect(merged.attributes["key"] == .string(level.rawValue))
    }
}
