import FeatureFlags
import Locking
import Testing

/// The scenarios of OpenFeature's `hooks.feature` (specification/assets/gherkin): the evaluation
/// details `after` and `finally` hooks receive, with the feature's flags from its
/// `test-flags.json` written in flagd's format.
@Suite("OpenFeature gherkin: evaluation details through hooks")
struct HooksFeatureTests {
    /// Records which stages ran and the details `after` and `finally` received.
    final class DetailsHook: FlagHook {
        let stages = Lock<[String]>([])
        let details = Lock<[String: FlagEvaluationDetails<FlagValue>]>([:])

        func before(_ context: HookContext, hints: HookHints) throws -> FlagEvaluationContext? {
            stages.withLock { $0.append("before") }
            return nil
        }

        func after(_ context: HookContext, details: FlagEvaluationDetails<FlagValue>, hints: HookHints) throws {
            stages.withLock { $0.append("after") }
            self.details.withLock { $0["after"] = details }
        }

        func error(_ context: HookContext, error: any Error, hints: HookHints) {
            stages.withLock { $0.append("error") }
        }

        func finally(_ context: HookContext, details: FlagEvaluationDetails<FlagValue>, hints: HookHints) {
            stages.withLock { $0.append("finally") }
            self.details.withLock { $0["finally"] = details }
        }
    }

    /// "Given a stable provider", "Given a client with added hook".
    static func client() async throws -> (FlagClient, DetailsHook) {
        let flags = try store(
            """
            { "flags": {
                "boolean-flag": { "state": "ENABLED", "variants": { "on": true, "off": false }, "defaultVariant": "on" },
                "wrong-flag": { "state": "ENABLED", "variants": { "one": "uno", "two": "dos" }, "defaultVariant": "one" }
            } }
            """)
        let api = OpenFeatureAPI()
        await api.setProvider(flags)
        let hook = DetailsHook()
        let client = api.client()
        client.addHooks([hook])
        return (client, hook)
    }

    @Test("Passes evaluation details to after and finally hooks")
    func afterAndFinally() async throws {
        let (client, hook) = try await Self.client()
        _ = client.booleanDetails("boolean-flag", default: false)
        #expect(hook.stages.withLock { $0 } == ["before", "after", "finally"])
        for stage in ["after", "finally"] {
            let details = hook.details.withLock { $0[stage] }
            #expect(details?.flagKey == "boolean-flag")
            #expect(details?.value == true)
            #expect(details?.variant == "on")
            #expect(details?.reason == .static)
            #expect(details?.errorCode == nil)
        }
    }

    @Test("Flag not found")
    func flagNotFound() async throws {
        let (client, hook) = try await Self.client()
        _ = client.stringDetails("missing-flag", default: "uh-oh")
        #expect(hook.stages.withLock { $0 } == ["before", "error", "finally"])
        let details = hook.details.withLock { $0["finally"] }
        #expect(details?.flagKey == "missing-flag")
        #expect(details?.value == "uh-oh")
        #expect(details?.variant == nil)
        #expect(details?.reason == .error)
        #expect(details?.errorCode == .flagNotFound)
    }

    @Test("Type error")
    func typeError() async throws {
        let (client, hook) = try await Self.client()
        _ = client.integerDetails("wrong-flag", default: 13)
        #expect(hook.stages.withLock { $0 } == ["before", "error", "finally"])
        let details = hook.details.withLock { $0["finally"] }
        #expect(details?.flagKey == "wrong-flag")
        #expect(details?.value == 13)
        #expect(details?.variant == nil)
        #expect(details?.reason == .error)
        #expect(details?.errorCode == .typeMismatch)
    }
}
