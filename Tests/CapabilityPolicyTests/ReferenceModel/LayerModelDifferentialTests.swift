import Capabilities
import CapabilityPolicy
import FeatureFlags
import Foundation
import TestSupport
import Testing

/// The loader and evaluator against the layer model (`LayerModel`): random vendor, admin and
/// per-user layers, the admin's final or not, each redefining some of the others' capabilities
/// and gates and adding its own; every gate in force decided under random flag values by both.
@Suite
struct LayerModelDifferentialTests {
    static let flagCount = 4

    static func layers(seed: UInt64) -> [LayerModel.Layer] {
        var random = SplitMix(seed: seed)
        func gate(_ index: Int) -> GateModel.Expression {
            GateModelDifferentialTests.expression(depth: 3, gateIndex: index, using: &random)
        }
        var vendor = LayerModel.Layer()
        for index in 0..<GateModelDifferentialTests.capabilityCount {
            vendor.capabilities[index] = Int.random(in: 0..<flagCount, using: &random)
        }
        for index in 0..<6 { vendor.gates[index] = gate(index) }
        var admin = LayerModel.Layer()
        admin.final = Bool.random(using: &random)
        var user = LayerModel.Layer()
        user.isUser = true
        for (layer, defined, added) in [(0, 0..<6, 6..<9), (1, 0..<9, 9..<12)] {
            var definitions = LayerModel.Layer()
            for index in 0..<GateModelDifferentialTests.capabilityCount where Int.random(in: 0..<3, using: &random) == 0
            {
                definitions.capabilities[index] = Int.random(in: 0..<flagCount, using: &random)
            }
            for index in defined where Int.random(in: 0..<3, using: &random) == 0 {
                definitions.gates[index] = gate(index)
            }
            for index in added { definitions.gates[index] = gate(index) }
            if layer == 0 {
                (admin.capabilities, admin.gates) = (definitions.capabilities, definitions.gates)
            } else {
                (user.capabilities, user.gates) = (definitions.capabilities, definitions.gates)
            }
        }
        return [vendor, admin, user]
    }

    @Test("random layers, final or not: every gate in force decides as the layer model says")
    func loaderAgreesWithModel() async throws {
        var problems: [String] = []
        var finals = 0
        var random = SplitMix(seed: 0x1A7E_0001)
        for policyIndex in 0..<30 {
            let layers = Self.layers(seed: 0x1A7E_1000 &+ UInt64(policyIndex))
            if layers[1].final { finals += 1 }
            let directory = try TemporaryDirectory(prefix: "layer-model")
            var flags = ["flags:", "  inline:", "    flags:"]
            for index in 0..<Self.flagCount {
                flags.append(
                    "      f\(index): { state: ENABLED, variants: { \"on\": true, \"off\": false }, defaultVariant: \"off\" }"
                )
            }
            _ = try directory.write(layers[0].text + flags.joined(separator: "\n") + "\n", to: "usr-share/policy.yaml")
            _ = try directory.write(layers[1].text, to: "etc/policy.yaml")
            _ = try directory.write(layers[2].text, to: "user/policy.yaml")
            let searchPath = PolicySearchPath(
                directories: [directory.path + "/usr-share", directory.path + "/etc"],
                userDirectory: directory.path + "/user")
            let policy = try LoadedPolicy(
                PolicyLoader.load(searchPath: searchPath, environment: .linux),
                options: PolicyOptions(watchesFlagFiles: false, pollsFlagServices: false))
            let resolved = LayerModel.resolve(layers)
            #expect(Set(policy.policy.gates.keys) == Set(resolved.gates.keys.map { "g\($0)" }), "policy \(policyIndex)")
            for _ in 0..<20 {
                let values = (0..<Self.flagCount).map { _ in GateModel.FlagValue.allCases.randomElement(using: &random)!
                }
                let assignment = GateModel.Assignment(statuses: [], flags: values)
                var assumptions = Assumptions()
                for (index, value) in values.enumerated() {
                    assumptions.flags["f\(index)"] =
                        switch value {
                        case .on: .bool(true)
                        case .off: .bool(false)
                        case .text: .string("blue")
                        }
                }
                for gate in resolved.gates.keys.sorted() {
                    let expected = LayerModel.decide(gate: gate, resolved, assignment)
                    let got = try await policy.evaluate(gate: "g\(gate)", assuming: assumptions).decisionOutcome
                    if got.rawValue != expected.rawValue, problems.count < 5 {
                        problems.append(
                            "policy \(policyIndex) (final \(layers[1].final)) g\(gate) under \(values.map(\.rawValue)): "
                                + "model \(expected.rawValue), loader and evaluator \(got.rawValue)\n"
                                + layers.map(\.text).joined(separator: "---\n"))
                    }
                }
            }
        }
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
        #expect(finals > 5 && finals < 25, "final and not final both tried: \(finals) of 30 final")
    }
}
