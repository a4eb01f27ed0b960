import Capabilities
import CapabilityPolicy
import ConfigurationFiles
import FeatureFlags
import Foundation
import TestSupport
import Testing

/// Replay on random gates: what an evaluation read (`GateEvaluation.statuses`, which is all a
/// record carries) decides it again exactly, and against another policy a replay never calls an
/// outcome the same that the reference model decides otherwise.
@Suite
struct PolicyReplayTests {
    static let options = PolicyOptions(watchesFlagFiles: false, pollsFlagServices: false)

    @Test("what an evaluation read decides it again: random gates under random assignments, every one the same")
    func replaysItself() async throws {
        let gates = GateModelDifferentialTests.randomGates(100, depth: 4, seed: 0x2E_9C1A)
        let directory = try TemporaryDirectory(prefix: "replay")
        let policy = try LoadedPolicy(
            GateModelDifferentialTests.askingPolicy(gates, in: directory, name: "policy.yaml"), options: Self.options)
        var random = SplitMix(seed: 0x2E_9C1B)
        var problems: [String] = []
        for _ in 0..<2_000 {
            let gate = Int.random(in: 0..<gates.count, using: &random)
            let given = GateModelDifferentialTests.assumptions(
                GateModelDifferentialTests.randomAssignment(using: &random))
            let evaluation = try await policy.evaluate(gate: "g\(gate)", assuming: given)
            let read = evaluation.statuses
            // Only what was given, each as given (a flag that is no Boolean reads as one value).
            for (name, kind) in read.capabilities where given.capabilities[name] != kind {
                problems.append("g\(gate): read \(name)=\(kind), given \(String(describing: given.capabilities[name]))")
            }
            for (key, value) in read.flags {
                let expected = given.flags[key].map {
                    $0 == .bool(true) || $0 == .bool(false) ? $0 : GateAnalysis.notABoolean
                }
                if expected != value {
                    problems.append(
                        "g\(gate): read flag \(key)=\(value), given \(String(describing: given.flags[key]))")
                }
            }
            let replay = try await PolicyReplay(
                gate: "g\(gate)", statuses: read, recorded: evaluation.decisionOutcome, policy: policy)
            if !replay.isSame {
                problems.append(
                    "g\(gate) = \(gates[gate]) from \(read): recorded \(evaluation.decisionOutcome), replayed "
                        + "\(replay.outcome), possible \(replay.possibleOutcomes), unrecorded \(replay.unrecorded)")
            }
            if problems.count > 5 { break }
        }
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    @Test("against another policy: a replay called the same is the same by the model, and the model's word is possible")
    func againstAnotherPolicy() async throws {
        let old = GateModelDifferentialTests.randomGates(80, depth: 3, seed: 0xD1_FF01)
        let new = GateModelDifferentialTests.randomGates(80, depth: 3, seed: 0xD1_FF02)
        let directory = try TemporaryDirectory(prefix: "replay-other")
        let before = try LoadedPolicy(
            GateModelDifferentialTests.askingPolicy(old, in: directory, name: "old.yaml"), options: Self.options)
        let after = try LoadedPolicy(
            GateModelDifferentialTests.askingPolicy(new, in: directory, name: "new.yaml"), options: Self.options)
        #expect(before.policy.revision != after.policy.revision)
        var random = SplitMix(seed: 0xD1_FF03)
        var problems: [String] = []
        var (same, different, undetermined) = (0, 0, 0)
        for _ in 0..<1_500 {
            let gate = Int.random(in: 0..<old.count, using: &random)
            let assignment = GateModelDifferentialTests.randomAssignment(using: &random)
            let evaluation = try await before.evaluate(
                gate: "g\(gate)", assuming: GateModelDifferentialTests.assumptions(assignment))
            let replay = try await PolicyReplay(
                gate: "g\(gate)", statuses: evaluation.statuses, recorded: evaluation.decisionOutcome, policy: after)
            // What the new gate decides on the whole assignment the old decision saw.
            let truth = GateModel.decide(new[gate], assignment, gates: new).rawValue
            if !replay.possibleOutcomes.map(\.rawValue).contains(truth) {
                problems.append("g\(gate): model \(truth) not among \(replay.possibleOutcomes)")
            }
            if replay.isSame {
                same += 1
                if truth != evaluation.decisionOutcome.rawValue {
                    problems.append("g\(gate): called the same, but the model decides \(truth)")
                }
            } else if replay.possibleOutcomes.count > 1 {
                undetermined += 1
                if replay.unrecorded.isEmpty { problems.append("g\(gate): could differ, naming nothing unrecorded") }
            } else {
                different += 1
            }
            if problems.count > 5 { break }
        }
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
        #expect(
            same > 0 && different > 0 && undetermined > 0,
            "same \(same), different \(different), could differ \(undetermined)")
    }

    @Test("a dismissed prompt replays as a failure; a gate the policy no longer has is an error")
    func dismissedAndMissing() async throws {
        let directory = try TemporaryDirectory(prefix: "replay-dismissed")
        let policy = try LoadedPolicy(
            GateModelDifferentialTests.askingPolicy([.capability(0)], in: directory, name: "policy.yaml"),
            options: Self.options)
        let replay = try await PolicyReplay(
            gate: "g0", statuses: Assumptions(capabilities: ["c0": .denied]), recorded: .dismissed, policy: policy)
        #expect(replay.isSame && replay.outcome == .fails)
        // A kind that never asks, given notDetermined all the same (a what-if can): the evaluator's word.
        let directory2 = try TemporaryDirectory(prefix: "replay-never-asks")
        let plain = try LoadedPolicy(
            PolicyLoader.load(
                files: [
                    try directory2.write(
                        GateModelDifferentialTests.policyText([.allOf([.capability(0), .capability(1)])]),
                        to: "policy.yaml")
                ],
                environment: .linux),
            options: Self.options)
        let asked = try await PolicyReplay(
            gate: "g0", statuses: Assumptions(capabilities: ["c0": .authorized, "c1": .notDetermined]),
            recorded: .needsInteraction, policy: plain)
        #expect(asked.isSame, "\(asked.outcome), possible \(asked.possibleOutcomes)")
        await #expect(throws: ConfigurationError.self) {
            try await PolicyReplay(gate: "gone", statuses: Assumptions(), recorded: .holds, policy: policy)
        }
    }
}
