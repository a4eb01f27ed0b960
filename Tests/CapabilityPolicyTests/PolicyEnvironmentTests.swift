import CapabilityPolicy
import FeatureFlags
import LinuxPolicy
import TestSupport
import Testing

/// What a policy environment gives the policies read with it.
@Suite
struct PolicyEnvironmentTests {
    /// An environment with the Linux kinds whose host context says `tier: gold` and counts how
    /// often it is made.
    private static func countingEnvironment(_ made: Counter) -> PolicyEnvironment {
        PolicyEnvironment(
            kinds: LinuxPolicySupport.kinds,
            deferredHostContext: {
                made.increment()
                return FlagEvaluationContext(targetingKey: "host", attributes: ["tier": .string("gold")])
            },
            subjectContext: nil)
    }

    private func load(_ text: String, environment: PolicyEnvironment) throws -> LoadedPolicy {
        let directory = try TemporaryDirectory(prefix: "policy-environment")
        let file = try directory.write(text, to: "policy.yaml")
        return try LoadedPolicy(PolicyLoader.load(files: [file], environment: environment))
    }

    @Test("the host context is made for a policy with flags and its flags read it; never for one without")
    func hostContextOnlyForFlags() throws {
        let made = Counter()
        let environment = Self.countingEnvironment(made)
        let withoutFlags = try load(
            """
            capabilities:
              scratch: { kind: file, path: /tmp }
            gates:
              write: { require: scratch }
            """, environment: environment)
        #expect(try withoutFlags.capability(named: "scratch").name.isEmpty == false)
        #expect(made.count == 0)

        let withFlags = try load(
            """
            flags:
              inline:
                flags:
                  beta:
                    state: ENABLED
                    variants: { "on": true, "off": false }
                    defaultVariant: "off"
                    targeting: { "if": [{ "==": [{ "var": "tier" }, "gold"] }, "on", "off"] }
            """, environment: environment)
        #expect(made.count >= 1)
        // "on" only through the host context's tier.
        #expect(withFlags.flags.value("beta", default: false) == true)
    }

    @Test("a host context set on a copy replaces the deferred one")
    func settingTheHostContext() {
        let made = Counter()
        var environment = Self.countingEnvironment(made)
        environment.hostContext = FlagEvaluationContext(targetingKey: "set")
        #expect(environment.hostContext.targetingKey == "set")
        #expect(made.count == 0)
    }
}
