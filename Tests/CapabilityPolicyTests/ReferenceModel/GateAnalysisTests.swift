import Capabilities
import CapabilityPolicy
import FeatureFlags
import Foundation
import LinuxPolicy
import TestSupport
import Testing

/// `GateAnalysis` against brute force: for random gates, every assignment of their capabilities'
/// statuses and flags' values decided by the reference model (`GateModel`), and each witness the
/// analysis gives decided again by the evaluator with `Assumptions`.
@Suite
struct GateAnalysisTests {
    @Test("what a gate can come to, what never matters and the cheapest witnesses agree with brute force")
    func agreesWithBruteForce() async throws {
        let gates = GateModelDifferentialTests.randomGates(60, depth: 3, seed: 0xA11A_1575)
        let directory = try TemporaryDirectory(prefix: "gate-analysis")
        let loaded = try LoadedPolicy(
            GateModelDifferentialTests.askingPolicy(gates, in: directory, name: "policy.yaml"),
            options: PolicyOptions(watchesFlagFiles: false, pollsFlagServices: false))
        for (index, gate) in gates.enumerated() {
            let analysis = try GateAnalysis(gate: "g\(index)", in: loaded.policy)
            let capabilities = analysis.capabilities.map { Int($0.dropFirst())! }
            let flags = analysis.flags.map { Int($0.dropFirst())! }
            // Every assignment of the atoms the gate reads; the others stay fixed.
            var words: Set<GateModel.Word> = []
            var fewestAuthorized: Int?
            var matters: Set<String> = []
            let statusCount = GateModel.Status.allCases.count
            let flagCount = GateModel.FlagValue.allCases.count
            let total =
                (0..<capabilities.count).reduce(1) { product, _ in product * statusCount }
                * (0..<flags.count).reduce(1) { product, _ in product * flagCount }
            func assignment(_ number: Int) -> GateModel.Assignment {
                var rest = number
                var assignment = GateModel.Assignment(
                    statuses: Array(repeating: .denied, count: GateModelDifferentialTests.capabilityCount),
                    flags: Array(repeating: .off, count: GateModelDifferentialTests.flagCount))
                for capability in capabilities {
                    assignment.statuses[capability] = GateModel.Status.allCases[rest % statusCount]
                    rest /= statusCount
                }
                for flag in flags {
                    assignment.flags[flag] = GateModel.FlagValue.allCases[rest % flagCount]
                    rest /= flagCount
                }
                return assignment
            }
            for number in 0..<total {
                let given = assignment(number)
                let word = GateModel.decide(gate, given, gates: gates)
                words.insert(word)
                if word == .holds {
                    let authorized = capabilities.filter { given.statuses[$0] == .authorized }.count
                    fewestAuthorized = min(fewestAuthorized ?? authorized, authorized)
                }
                // An atom matters when changing it alone changes the word somewhere.
                for capability in capabilities where !matters.contains("c\(capability)") {
                    for status in GateModel.Status.allCases {
                        var other = given
                        other.statuses[capability] = status
                        if GateModel.decide(gate, other, gates: gates) != word { matters.insert("c\(capability)") }
                    }
                }
                for flag in flags where !matters.contains("flag f\(flag)") {
                    for value in GateModel.FlagValue.allCases {
                        var other = given
                        other.flags[flag] = value
                        if GateModel.decide(gate, other, gates: gates) != word { matters.insert("flag f\(flag)") }
                    }
                }
            }
            let name = "g\(index) = \(gate)"
            #expect(analysis.canHold == words.contains(.holds), "\(name)")
            #expect(analysis.canFail == words.contains(.fails), "\(name)")
            #expect(analysis.canBeUndecided == words.contains(.undecided), "\(name)")
            #expect(analysis.canAsk == words.contains(.needsInteraction), "\(name)")
            let atoms = analysis.capabilities + analysis.flags.map { "flag " + $0 }
            #expect(Set(analysis.neverMatters) == Set(atoms).subtracting(matters), "\(name)")
            if let holdsWhen = analysis.holdsWhen {
                #expect(
                    holdsWhen.capabilities.values.filter { $0 == .authorized }.count == fewestAuthorized,
                    "\(name): as few capabilities authorized as possible")
            }
            // Each witness, given back as --assume gives it, decides as promised.
            let witnesses: [(Assumptions?, String)] = [
                (analysis.holdsWhen, "holds"), (analysis.failsWhen, "fails"),
                (analysis.undecidedWhen, "undecided"), (analysis.asksWhen, "needsInteraction"),
            ]
            for case (let witness?, let word) in witnesses {
                let evaluation = try await loaded.evaluate(gate: "g\(index)", assuming: witness)
                #expect(evaluation.decisionOutcome.rawValue == word, "\(name) with \(witness)")
            }
        }
    }

    @Test("a useless part of an any-of, a not over a login, a gate that can never hold")
    func findings() throws {
        let directory = try TemporaryDirectory(prefix: "gate-analysis")
        let file = try directory.write(
            """
            capabilities:
              admin: { kind: pam, service: login }
              ops: { kind: group, group: root }
              me: { kind: user, user: root }
            gates:
              absorbed: { require: { any-of: [ops, { all-of: [ops, admin] }] } }
              careless: { require: { not: admin } }
              careful: { require: { not: { silent: admin } } }
              impossible: { require: { all-of: [me, { not: me }] } }
            """, to: "policy.yaml")
        let policy = try PolicyLoader.load(files: [file], environment: .linux)
        let absorbed = try GateAnalysis(gate: "absorbed", in: policy)
        #expect(absorbed.neverMatters == ["admin"])
        #expect(
            absorbed.uselessParts == [
                "in any-of(ops, all-of(ops, admin)): all-of(ops, admin) never changes the outcome (the other parts decide alone)"
            ])
        #expect(!absorbed.canAsk, "a group is never asked for, and the login never matters")
        #expect(try GateAnalysis(gate: "careless", in: policy).negatedAsking.count == 1)
        #expect(try GateAnalysis(gate: "careful", in: policy).negatedAsking.isEmpty)
        let impossible = try GateAnalysis(gate: "impossible", in: policy)
        #expect(!impossible.canHold && impossible.holdsWhen == nil && impossible.canFail)
    }
}
