import Capabilities
import CapabilityPolicy
import FeatureFlags
import Foundation
import LinuxPolicy
import TestSupport
import Testing

/// The evaluator against the reference model (`GateModel`): random gates (all-of, any-of, not,
/// silent, flags and other gates over six capabilities and three flags) in one policy file, each
/// decided under random assignments of statuses and flag values given with `Assumptions`, as
/// `capctl check --assume` gives them. Seeded: a failure names the seed, gate and assignment
/// that replay it. `CAPCTL_MODEL_DECISIONS` sets how many: 50,000 beside the other tests (the
/// evaluator is async, and a million decisions would hold the shared threads the tests beside it
/// need); Scripts/test runs 1,000,000 in a step of their own, and 10,000,000 is the long run.
@Suite
struct GateModelDifferentialTests {
    static let capabilityCount = 6
    static let flagCount = 3

    /// A random requirement of at most `depth` levels, using gates below `gateIndex`.
    static func expression(depth: Int, gateIndex: Int, using random: inout SplitMix) -> GateModel.Expression {
        let leafOnly = depth == 0 || Int.random(in: 0..<3, using: &random) == 0
        if leafOnly {
            switch Int.random(in: 0..<12, using: &random) {
            case 0..<8: return .capability(Int.random(in: 0..<capabilityCount, using: &random))
            case 8..<11: return .flag(Int.random(in: 0..<flagCount, using: &random))
            default:
                guard gateIndex > 0 else { return .capability(0) }
                return .gate(Int.random(in: max(0, gateIndex - 4)..<gateIndex, using: &random))
            }
        }
        func parts() -> [GateModel.Expression] {
            (0..<Int.random(in: 1...3, using: &random)).map { _ in
                expression(depth: depth - 1, gateIndex: gateIndex, using: &random)
            }
        }
        switch Int.random(in: 0..<4, using: &random) {
        case 0: return .allOf(parts())
        case 1: return .anyOf(parts())
        case 2: return .not(expression(depth: depth - 1, gateIndex: gateIndex, using: &random))
        default: return .silent(expression(depth: depth - 1, gateIndex: gateIndex, using: &random))
        }
    }

    /// `count` random gates of at most `depth` levels, each using only gates before it.
    static func randomGates(_ count: Int, depth: Int, seed: UInt64) -> [GateModel.Expression] {
        var random = SplitMix(seed: seed)
        return (0..<count).map { expression(depth: depth, gateIndex: $0, using: &random) }
    }

    /// The policy file of `gates` whose capabilities may ask (pam, with a service of `directory`
    /// that it writes), so every status is a possible one: what the analyses are compared on.
    static func askingPolicy(_ gates: [GateModel.Expression], in directory: TemporaryDirectory, name: String) throws
        -> Policy
    {
        try directory.write("auth required pam_permit.so\naccount required pam_permit.so\n", to: "pam/t")
        let text = policyText(gates).replacingOccurrences(
            of: "{ kind: user, user: root }",
            with: "{ kind: pam, service: t, service-directory: \(directory.path)/pam }")
        return try PolicyLoader.load(files: [try directory.write(text, to: name)], environment: .linux)
    }

    /// The policy file of `gates`: capabilities c0... (any kind: each is assumed), inline flags f0...
    static func policyText(_ gates: [GateModel.Expression]) -> String {
        var lines = ["capabilities:"]
        for index in 0..<capabilityCount { lines.append("  c\(index): { kind: user, user: root }") }
        lines += ["flags:", "  inline:", "    flags:"]
        for index in 0..<flagCount {
            lines.append(
                "      f\(index): { state: ENABLED, variants: { \"on\": true, \"off\": false }, defaultVariant: \"off\" }"
            )
        }
        lines.append("gates:")
        for (index, gate) in gates.enumerated() { lines.append("  g\(index): { require: \(gate) }") }
        return lines.joined(separator: "\n") + "\n"
    }

    static func assumptions(_ assignment: GateModel.Assignment) -> Assumptions {
        var assumptions = Assumptions()
        for (index, status) in assignment.statuses.enumerated() {
            assumptions.capabilities["c\(index)"] = CapabilityStatus.Kind(rawValue: status.rawValue)!
        }
        for (index, value) in assignment.flags.enumerated() {
            assumptions.flags["f\(index)"] =
                switch value {
                case .on: .bool(true)
                case .off: .bool(false)
                case .text: .string("blue")
                }
        }
        return assumptions
    }

    static func randomAssignment(using random: inout SplitMix) -> GateModel.Assignment {
        GateModel.Assignment(
            statuses: (0..<capabilityCount).map { _ in GateModel.Status.allCases.randomElement(using: &random)! },
            flags: (0..<flagCount).map { _ in GateModel.FlagValue.allCases.randomElement(using: &random)! })
    }

    /// How many decisions a run makes: 50,000 unless `CAPCTL_MODEL_DECISIONS` says otherwise.
    static var decisions: Int {
        ProcessInfo.processInfo.environment["CAPCTL_MODEL_DECISIONS"].flatMap(Int.init) ?? 50_000
    }

    @Test("the evaluator decides random gates under random assumptions exactly as the reference model does")
    func evaluatorAgreesWithModel() async throws {
        let gateCount = 200
        let seed: UInt64 = 0x5EED_0015
        var random = SplitMix(seed: seed)
        var made: [GateModel.Expression] = []
        for index in 0..<gateCount { made.append(Self.expression(depth: 4, gateIndex: index, using: &random)) }
        let gates = made
        let directory = try TemporaryDirectory(prefix: "gate-model")
        let file = try directory.write(Self.policyText(gates), to: "policy.yaml")
        let policy = try LoadedPolicy(
            PolicyLoader.load(files: [file], environment: .linux),
            options: PolicyOptions(watchesFlagFiles: false, pollsFlagServices: false))
        let perGate = max(1, Self.decisions / gateCount)
        // Two lanes, one per core: each decides its own gates, each with its own seeded assignments.
        let lanes = 2
        let differences = try await withThrowingTaskGroup(of: [String].self) { group in
            for lane in 0..<lanes {
                group.addTask {
                    var random = SplitMix(seed: seed &+ UInt64(lane) &+ 1)
                    var found: [String] = []
                    for gate in stride(from: lane, to: gateCount, by: lanes) {
                        for _ in 0..<perGate {
                            let assignment = Self.randomAssignment(using: &random)
                            let expected = GateModel.decide(gates[gate], assignment, gates: gates)
                            let evaluation = try await policy.evaluate(
                                gate: "g\(gate)", assuming: Self.assumptions(assignment))
                            let got = evaluation.decisionOutcome.rawValue
                            if got != expected.rawValue, found.count < 5 {
                                found.append(
                                    "g\(gate) = \(gates[gate]) under \(assignment.statuses.map(\.rawValue)) "
                                        + "\(assignment.flags.map(\.rawValue)): model \(expected.rawValue), evaluator \(got)"
                                )
                            }
                        }
                    }
                    return found
                }
            }
            var all: [String] = []
            for try await found in group { all += found }
            return all
        }
        #expect(differences.isEmpty, "seed \(seed): \(differences.joined(separator: "\n"))")
    }

    @Test("the model itself: rules 15-18 on small cases written out by hand")
    func modelByHand() {
        let all = GateModel.Assignment(statuses: [.authorized, .denied, .unavailable, .notDetermined], flags: [.on])
        func word(_ expression: GateModel.Expression) -> GateModel.Word {
            GateModel.decide(expression, all, gates: [])
        }
        #expect(word(.capability(3)) == .needsInteraction)
        #expect(word(.silent(.capability(3))) == .fails)
        #expect(word(.not(.silent(.capability(3)))) == .holds, "rule 17")
        #expect(word(.not(.capability(2))) == .undecided, "undecided never becomes a pass")
        #expect(word(.anyOf([.capability(1), .capability(2)])) == .undecided)
        #expect(word(.anyOf([.capability(2), .capability(3)])) == .needsInteraction)
        #expect(word(.allOf([.capability(2), .capability(3)])) == .undecided)
        #expect(word(.allOf([.capability(1), .capability(2)])) == .fails)
        #expect(word(.allOf([])) == .holds)
        #expect(word(.anyOf([])) == .fails)
    }
}
