import ProcedureCore

/// What running policy test cases came to (`capctl test`): each failure with its case, and the
/// coverage of the gates the cases decided, counted in integers: of every outcome each node of
/// each gate's tree can come to (`GateAnalysis`), how many some case reached.
///
/// ```swift
/// var run = PolicyTestRun()
/// let file = try PolicyTestFile.read("/etc/capctl/policy.test.yaml")
/// await run.run(file, on: policy)
/// print("\(run.passed) passed, \(run.failures.count) failed; \(run.coveredOutcomes) of \(run.possibleOutcomes) node outcomes")
/// ```
public struct PolicyTestRun: Sendable {
    /// A case that did not come out as it expected, and how.
    public struct Failure: Sendable {
        /// The case.
        public let testCase: PolicyTestFile.Case
        /// The file it is in.
        public let file: String
        /// What was expected and what came.
        public let message: String
    }

    /// How many cases passed.
    public private(set) var passed = 0
    /// The cases that failed.
    public private(set) var failures: [Failure] = []
    /// Each case with its file, in the order run, and whether it passed.
    public private(set) var cases: [(file: String, testCase: PolicyTestFile.Case, failure: String?)] = []
    /// The outcomes each node of each decided gate can come to, by gate and node path.
    private var possible: [String: [String: Set<String>]] = [:]
    /// The outcomes cases reached, by gate and node path.
    private var reached: [String: [String: Set<String>]] = [:]
    /// A name for each node path, from the explanations.
    private var names: [String: [String: String]] = [:]

    /// An empty run.
    public init() {}

    /// Runs every case of `file` against `policy`.
    public mutating func run(_ file: PolicyTestFile, on policy: LoadedPolicy) async {
        // Every gate of the policy counts, decided by a case or not: an untested gate is uncovered.
        for gate in policy.policy.gates.keys where possible[gate] == nil {
            possible[gate] = GateAnalysis.nodeOutcomes(gate: gate, in: policy.policy)
        }
        for testCase in file.cases {
            let failure = await run(testCase, on: policy)
            cases.append((file.path, testCase, failure))
            if let failure {
                failures.append(Failure(testCase: testCase, file: file.path, message: failure))
            } else {
                passed += 1
            }
        }
    }

    /// Runs one case; the reason it failed, or nil.
    private mutating func run(_ testCase: PolicyTestFile.Case, on loaded: LoadedPolicy) async -> String? {
        let policy = loaded.policy
        let gate = testCase.gate
        guard policy.gates[gate] != nil else { return "the policy defines no gate \"\(gate)\"" }
        for name in testCase.assumptions.capabilities.keys.sorted() where policy.capabilities[name] == nil {
            return "assume: the policy defines no capability \"\(name)\""
        }
        let flagsRead = policy.flagKeysRead
        for key in testCase.assumptions.flags.keys.sorted() where !flagsRead.contains(key) {
            return "flags: no gate or capability of the policy reads flag \"\(key)\""
        }
        // Hermetic: what the case does not assume is denied, never read from this host.
        var assumptions = testCase.assumptions
        for name in policy.reads(gate: gate).capabilities where assumptions.capabilities[name] == nil {
            assumptions.capabilities[name] = .denied
        }
        let evaluation: GateEvaluation
        do {
            evaluation = try await loaded.evaluate(gate: gate, assuming: assumptions)
        } catch {
            return "\(error)"
        }
        cover(gate: gate, evaluation.explanation, policy: policy)
        let got = evaluation.decisionOutcome.rawValue
        let failing = evaluation.explanation.failedLeaves
        guard got == testCase.expected else {
            let why = failing.map { "\($0.condition): \($0.outcome.rawValue): \($0.reason)" }.joined(separator: "; ")
            return "gate \(gate): expected \(testCase.expected), got \(got)" + (why.isEmpty ? "" : " (\(why))")
        }
        for name in testCase.because {
            let conditions = Set(failing.map(\.condition))
            let named = Set(failing.map { Self.named($0.condition) })
            guard named.contains("AuthorizedFor(\(name))") || named.contains("FlagIsOn(\(name))") else {
                return "gate \(gate): \(got) as expected, but not because of \(name) (the parts that did not pass: "
                    + (conditions.isEmpty ? "none" : conditions.sorted().joined(separator: ", ")) + ")"
            }
        }
        return nil
    }

    /// A part's condition without the `not` and `silent` around it: `Negated(FlagIsOn(x))` is
    /// the flag x's doing.
    private static func named(_ condition: String) -> String {
        var name = Substring(condition)
        while name.hasSuffix(")"), let prefix = ["Negated(", "Silent("].first(where: { name.hasPrefix($0) }) {
            name = name.dropFirst(prefix.count).dropLast()
        }
        return String(name)
    }

    private mutating func cover(gate: String, _ explanation: ConditionExplanation, policy: Policy) {
        if possible[gate] == nil { possible[gate] = GateAnalysis.nodeOutcomes(gate: gate, in: policy) }
        func walk(_ node: ConditionExplanation, path: String) {
            reached[gate, default: [:]][path, default: []].insert(node.outcome.rawValue)
            names[gate, default: [:]][path] = node.condition
            for (index, child) in node.children.enumerated() {
                walk(child, path: path.isEmpty ? "\(index)" : "\(path).\(index)")
            }
        }
        walk(explanation, path: "")
    }

    /// Node outcomes some case reached, of ``possibleOutcomes``.
    public var coveredOutcomes: Int {
        possible.reduce(0) { total, gate in
            total
                + gate.value.reduce(0) { sum, node in
                    sum + node.value.intersection(reached[gate.key]?[node.key] ?? []).count
                }
        }
    }

    /// Every outcome every node of every gate the cases decided can come to.
    public var possibleOutcomes: Int {
        possible.values.reduce(0) { total, nodes in total + nodes.values.reduce(0) { $0 + $1.count } }
    }

    /// Each node outcome no case reached, as `gate NAME: CONDITION: OUTCOME`, sorted.
    public var uncovered: [String] {
        var lines: [String] = []
        for (gate, nodes) in possible {
            for (path, outcomes) in nodes {
                let missing = outcomes.subtracting(reached[gate]?[path] ?? [])
                guard !missing.isEmpty else { continue }
                let name = names[gate]?[path] ?? "node \(path)"
                lines.append(
                    "gate \(gate): \(name) [\(path.isEmpty ? "root" : path)]: "
                        + missing.sorted().joined(separator: ", "))
            }
        }
        return lines.sorted()
    }
}
