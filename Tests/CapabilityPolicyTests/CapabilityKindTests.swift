import Capabilities
import CapabilityPolicy
import ConfigurationFiles
import FeatureFlags
import Foundation
import LinuxBackends
import LinuxPolicy
import Testing

/// Capability kinds are a protocol: the Linux layer registers the built-in ones, a program can
/// add its own, and the policy file schema is generated from them.
@Suite("Capability kinds")
struct CapabilityKindTests {
    /// A kind of the program's own: held while a named environment variable is set.
    struct EnvironmentVariableKind: CapabilityKind {
        var name: String { "environment" }
        var summary: String { "Held while an environment variable is set." }
        var settings: [CapabilitySetting] {
            [
                CapabilitySetting(
                    "variable", .pattern("^[A-Z_][A-Z0-9_]*$"), required: true, summary: "The variable's name.")
            ]
        }

        func validate(_ settings: CapabilitySettings) throws(CapabilityConfigurationError) {
            guard let variable = settings.string("variable"),
                variable.allSatisfy({ $0.isUppercase || $0 == "_" || $0.isNumber })
            else {
                throw CapabilityConfigurationError("\"variable\" must be an upper-case name")
            }
        }

        func makeCapability(_ settings: CapabilitySettings, in context: CapabilityKindContext)
            throws(CapabilityConfigurationError) -> any CapabilityType
        {
            let variable = settings.string("variable") ?? ""
            let status: CapabilityStatus =
                ProcessInfo.processInfo.environment[variable] != nil
                ? .authorized("\(variable) is set") : .denied("\(variable) is not set")
            return StaticCapability(name: "environment:\(variable)", fixed: status)
        }
    }

    struct StaticCapability: CapabilityType {
        let name: String
        let fixed: CapabilityStatus
        func status() async throws -> CapabilityStatus { fixed }
        func authorize() async throws -> CapabilityStatus { fixed }
    }

    @Test("a program's own kind is parsed with its typed settings, checked at load, built and gated on")
    func ownKind() async throws {
        // The portable environment and this kind: no Linux kind is needed to read this policy.
        var environment = PolicyEnvironment.portable
        environment.register(EnvironmentVariableKind())
        let policy = try PolicyLoader.parse(
            """
            capabilities:
              home: { kind: environment, variable: PATH }
              unset: { kind: environment, variable: CAPCTL_TEST_NEVER_SET_42 }
            gates:
              has-home: { require: home }
              has-unset: { require: unset }
            """, file: "own.yaml", environment: environment
        ).get()
        #expect(policy.capabilities["home"]?.settings == CapabilitySettings(["variable": .string("PATH")]))
        let loaded = try LoadedPolicy(policy)
        #expect(try await loaded.evaluate(gate: "has-home").holds)
        #expect(try await loaded.evaluate(gate: "has-unset").outcome == .failed)

        let errors = try #require(
            PolicyLoader.parse(
                "capabilities:\n  x: { kind: environment, variable: lower }\n", file: "bad.yaml",
                environment: environment
            ).failure
        )
        #expect(
            errors.errors.map(\.description) == [
                "bad.yaml:2:6: capability \"x\": \"variable\" must be an upper-case name"
            ])
        let missing = try #require(
            PolicyLoader.parse(
                "capabilities:\n  x: { kind: environment }\n", file: "bad.yaml", environment: environment
            )
            .failure)
        #expect(missing.errors.first?.message == "capability \"x\" needs \"variable\"")
    }

    @Test("an unregistered kind is an error that lists the registered ones")
    func unknownKind() throws {
        #expect(PolicyEnvironment.portable.kinds.map(\.name) == ["flag"])
        #expect(
            PolicyEnvironment.linux.kinds.map(\.name) == [
                "file", "flag", "group", "host", "network", "pam", "polkit", "process-capability", "user",
            ])
        let errors = try #require(
            PolicyLoader.parse("capabilities:\n  x: { kind: vault }\n", file: "p.yaml", environment: .linux).failure)
        #expect(errors.errors.first?.message.hasPrefix("unknown kind \"vault\" in capability \"x\" (kinds: ") == true)
    }

    @Test("the kinds that answer from this host alone say so; those that ask a daemon, the network or a flag do not")
    func readsStatusLocally() {
        let local = PolicyEnvironment.linux.kinds.filter(\.readsStatusLocally).map(\.name)
        #expect(local == ["file", "group", "pam", "process-capability", "user"])
    }

    @Test("what a file means depends only on the environment it is read with, never on what was read before")
    func environmentIsExplicit() throws {
        let text = "capabilities:\n  admin: { kind: pam, service: login }\ngates:\n  g: { require: admin }\n"
        let portable = try #require(PolicyLoader.parse(text, file: "p.yaml").failure)
        #expect(portable.errors.first?.message.hasPrefix("unknown kind \"pam\"") == true, "\(portable)")
        let linux = try PolicyLoader.parse(text, file: "p.yaml", environment: .linux).get()
        #expect(linux.capabilities["admin"]?.kind == "pam")
        #expect(linux.environment.kind(named: "pam") != nil)
        // Reading with the Linux kinds changed nothing for the next reader.
        #expect(PolicyLoader.parse(text, file: "p.yaml").failure != nil)
    }

    @Test(
        "Docs/policy.schema.json is the schema generated from the built-in kinds (regenerate: swift run capctl schema > Docs/policy.schema.json)"
    )
    func schemaIsCurrent() throws {
        let environment = PolicyEnvironment.linux
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let committed = try String(contentsOf: root.appendingPathComponent("Docs/policy.schema.json"), encoding: .utf8)
        #expect(PolicySchema.json(for: environment) == committed)
    }
}

extension Result {
    fileprivate var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

/// What a kept login is tied to: any changed setting changes it, and no two different settings read alike.
@Suite("Capability settings' fingerprint")
struct CapabilitySettingsFingerprintTests {
    @Test("one text per settings: changed by any value, key or type, never shared by different settings")
    func fingerprint() {
        let base = CapabilitySettings(["service": .string("admin"), "keep": .duration(.seconds(300))])
        #expect(base.fingerprint == CapabilitySettings(base.values).fingerprint)
        #expect(base.fingerprint == #"{"keep":{"duration":[300,0]},"service":"admin"}"#)
        let different: [CapabilitySettings] = [
            CapabilitySettings(["service": .string("admin"), "keep": .duration(.seconds(301))]),
            CapabilitySettings(["service": .string("admin")]),
            CapabilitySettings(["service": .string("admin"), "keep": .duration(.milliseconds(300_001))]),
            // A value that spells another setting in it.
            CapabilitySettings(["service": .string(#"admin","keep":{"duration":[300,0]}"#)]),
            CapabilitySettings(["service": .strings(["admin"]), "keep": .duration(.seconds(300))]),
            CapabilitySettings(["service": .string("admin"), "keep": .integer(300)]),
            CapabilitySettings(["service": .string("admin"), "keep": .any(.number(300))]),
            CapabilitySettings(["service": .string("admin"), "keep": .stringMap(["duration": "300"])]),
            CapabilitySettings(["service": .string("admin"), "keep": .boolean(true)]),
        ]
        let texts = different.map(\.fingerprint)
        #expect(Set(texts + [base.fingerprint]).count == texts.count + 1, "\(texts)")
    }
}
