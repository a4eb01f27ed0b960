import Capabilities
import CapabilityPolicy
import Foundation
import LinuxPolicy
import TestSupport
import Testing

/// `PolicyDifference` against brute force by the reference model: random gates compared with
/// equivalent rewrites of themselves (double negation, parts reordered or repeated, an all-of of
/// one part), which must read unchanged, and with random mutations, which differ exactly when
/// some assignment makes the model's words differ; every counterexample does.
@Suite
struct PolicyDifferenceTests {
    /// An equivalent requirement: the same word under every assignment (rules 15 and 18).
    static func rewrite(_ expression: GateModel.Expression, using random: inout SplitMix) -> GateModel.Expression {
        let rewritten: GateModel.Expression =
            switch expression {
            case .allOf(let parts): .allOf(parts.map { rewrite($0, using: &random) }.shuffled(using: &random))
            case .anyOf(let parts): .anyOf(parts.map { rewrite($0, using: &random) }.shuffled(using: &random))
            case .not(let part): .not(rewrite(part, using: &random))
            case .silent(let part): .silent(rewrite(part, using: &random))
            case let leaf: leaf
            }
        switch Int.random(in: 0..<6, using: &random) {
        case 0: return .not(.not(rewritten))
        case 1: return .allOf([rewritten])
        case 2: return .anyOf([rewritten, rewritten])
        default: return rewritten
        }
    }

    /// A requirement changed in one place, which may or may not change what it decides.
    static func mutate(_ expression: GateModel.Expression, using random: inout SplitMix) -> GateModel.Expression {
        switch expression {
        case .allOf(let parts) where Bool.random(using: &random): return .anyOf(parts)
        case .anyOf(let parts) where Bool.random(using: &random): return .allOf(parts)
        case .allOf(var parts):
            let index = Int.random(in: parts.indices, using: &random)
            parts[index] = mutate(parts[index], using: &random)
            return .allOf(parts)
        case .anyOf(var parts):
            let index = Int.random(in: parts.indices, using: &random)
            parts[index] = mutate(parts[index], using: &random)
            return .anyOf(parts)
        case .not(let part): return Bool.random(using: &random) ? part : .not(mutate(part, using: &random))
        case .silent(let part): return Bool.random(using: &random) ? part : .silent(mutate(part, using: &random))
        case .capability(let index): return .capability((index + 1) % GateModelDifferentialTests.capabilityCount)
        case .flag: return .not(expression)
        case .gate: return .silent(expression)
        }
    }

    @Test("equivalent rewrites are unchanged; mutations differ exactly when brute force finds an assignment")
    func agreesWithBruteForce() throws {
        var random = SplitMix(seed: 0xD1FF_0057)
        let gates = GateModelDifferentialTests.randomGates(40, depth: 3, seed: 0xD1FF_0056)
        let directory = try TemporaryDirectory(prefix: "policy-difference")
        func load(_ gates: [GateModel.Expression], name: String) throws -> Policy {
            try GateModelDifferentialTests.askingPolicy(gates, in: directory, name: name)
        }
        let old = try load(gates, name: "old.yaml")
        var equivalent = 0
        var differing = 0
        for index in gates.indices {
            var rewritten = gates
            rewritten[index] = Self.rewrite(gates[index], using: &random)
            let same = PolicyDifference(old: old, new: try load(rewritten, name: "rewritten.yaml"))
            #expect(
                same.gates.first { $0.gate == "g\(index)" }?.kind == .unchanged,
                "g\(index): \(gates[index]) vs \(rewritten[index])")
            var mutated = gates
            mutated[index] = Self.mutate(gates[index], using: &random)
            let change = try #require(
                PolicyDifference(old: old, new: try load(mutated, name: "mutated.yaml")).gates.first {
                    $0.gate == "g\(index)"
                })
            // Brute force over every capability status and flag value.
            var differs = false
            let statuses = GateModel.Status.allCases
            let values = GateModel.FlagValue.allCases
            let capabilityCount = GateModelDifferentialTests.capabilityCount
            let flagCount = GateModelDifferentialTests.flagCount
            let total =
                Int(pow(Double(statuses.count), Double(capabilityCount)))
                * Int(pow(Double(values.count), Double(flagCount)))
            for number in 0..<total where !differs {
                var rest = number
                var assignment = GateModel.Assignment(statuses: [], flags: [])
                for _ in 0..<capabilityCount {
                    assignment.statuses.append(statuses[rest % statuses.count])
                    rest /= statuses.count
                }
                for _ in 0..<flagCount {
                    assignment.flags.append(values[rest % values.count])
                    rest /= values.count
                }
                differs =
                    GateModel.decide(gates[index], assignment, gates: gates)
                    != GateModel.decide(mutated[index], assignment, gates: mutated)
            }
            #expect((change.kind == .decidesDifferently) == differs, "g\(index): \(gates[index]) vs \(mutated[index])")
            if differs { differing += 1 } else { equivalent += 1 }
            // The counterexample, given to the model, gives the two words said.
            if let example = change.counterexample, let words = change.words {
                var assignment = GateModel.Assignment(
                    statuses: Array(repeating: .denied, count: capabilityCount),
                    flags: Array(repeating: .off, count: flagCount))
                for (name, status) in example.capabilities {
                    assignment.statuses[Int(name.dropFirst())!] = GateModel.Status(rawValue: status.rawValue)!
                }
                for (name, value) in example.flags {
                    assignment.flags[Int(name.dropFirst())!] =
                        value == .bool(true) ? .on : value == .bool(false) ? .off : .text
                }
                #expect(GateModel.decide(gates[index], assignment, gates: gates).rawValue == words.old)
                #expect(GateModel.decide(mutated[index], assignment, gates: mutated).rawValue == words.new)
            }
        }
        // Both kinds of mutation came up: the test compared something.
        #expect(differing > 5 && equivalent > 0, "\(differing) differing, \(equivalent) equivalent mutations")
    }

    @Test("under a final system policy, no random per-user layer makes a system gate decide differently")
    func finalSystemGatesWhateverTheUserWrites() throws {
        let directory = try TemporaryDirectory(prefix: "final-layers")
        let gates = GateModelDifferentialTests.randomGates(40, depth: 3, seed: 0xF1_4A10)
        let system = try directory.write(
            "final: true\n" + GateModelDifferentialTests.policyText(gates), to: "etc/policy.yaml")
        let alone = try PolicyLoader.load(files: [system], environment: .linux)
        var random = SplitMix(seed: 0xF1_4A11)
        for layer in 0..<40 {
            // The user redefines the system's capabilities, gates and flags, and adds gates of its own.
            let theirs = GateModelDifferentialTests.randomGates(gates.count, depth: 3, seed: 0xF1_4A12 &+ UInt64(layer))
            var lines = ["capabilities:"]
            for index in 0..<GateModelDifferentialTests.capabilityCount {
                let kind =
                    Bool.random(using: &random) ? "{ kind: file, path: /tmp }" : "{ kind: user, user: nobody }"
                lines.append("  c\(index): \(kind)")
            }
            lines += ["flags:", "  inline:", "    flags:"]
            for index in 0..<GateModelDifferentialTests.flagCount {
                let value = Bool.random(using: &random) ? "on" : "off"
                lines.append(
                    "      f\(index): { state: ENABLED, variants: { \"on\": true, \"off\": false }, defaultVariant: \"\(value)\" }"
                )
            }
            lines.append("gates:")
            for (index, gate) in theirs.enumerated() {
                // Each of the system's gates written again (refused), and one of the user's own over them.
                lines.append("  g\(index): { require: \(gate) }")
                lines.append("  u\(index): { require: \(gate) }")
            }
            let user = try directory.write(lines.joined(separator: "\n") + "\n", to: "user-\(layer)/capctl/policy.yaml")
            let layered = try PolicyLoader.load(
                files: [system, user], userDirectory: directory.path + "/user-\(layer)/capctl", environment: .linux)
            let changed = PolicyDifference(old: alone, new: layered).gates.filter {
                alone.gates[$0.gate] != nil && $0.kind != .unchanged
            }
            #expect(changed.isEmpty, "layer \(layer): \(changed.map(\.gate))")
            #expect(!layered.refusedOverrides.isEmpty, "the layer tried to replace the system's definitions")
        }
    }
}
