/// How two policies' gates differ (`capctl diff OLD NEW`): for each gate, unchanged, added,
/// removed, or decided differently, with an assignment of statuses and flag values under which
/// the two decide differently and both words. Exact: both gates are built into one decision
/// diagram over shared atoms, so two requirements that decide alike under every assignment
/// (a double negation, a reordered all-of) are the same node and read as unchanged.
///
/// ```swift
/// let changes = PolicyDifference(old: policy.policy, new: policy.policy)
/// for change in changes.gates where change.kind == .decidesDifferently { print(change.gate) }
/// ```
public struct PolicyDifference: Sendable {
    /// One gate's change.
    public struct GateChange: Sendable {
        /// What happened to the gate.
        public enum Kind: String, Sendable {
            /// It decides alike under every assignment.
            case unchanged
            /// Only the new policy defines it.
            case added
            /// Only the old policy defines it.
            case removed
            /// Some assignment makes the two decide differently.
            case decidesDifferently
        }

        /// The gate's name.
        public let gate: String
        /// What happened to it.
        public let kind: Kind
        /// For `decidesDifferently`: an assignment under which the two differ.
        public let counterexample: Assumptions?
        /// The old policy's word and the new one's under `counterexample`.
        public let words: (old: String, new: String)?
    }

    /// Every gate of either policy, by name.
    public let gates: [GateChange]

    /// Whether any gate of both decides differently, or was added or removed.
    public var changesDecisions: Bool { gates.contains { $0.kind != .unchanged } }

    /// Compares every gate of `old` with the gate of the same name in `new`.
    public init(old: Policy, new: Policy) {
        var builder = GateAnalysis.Builder(policy: old)
        var changes: [GateChange] = []
        for name in Set(old.gates.keys).union(new.gates.keys).sorted() {
            guard let before = old.gates[name] else {
                changes.append(GateChange(gate: name, kind: .added, counterexample: nil, words: nil))
                continue
            }
            guard let after = new.gates[name] else {
                changes.append(GateChange(gate: name, kind: .removed, counterexample: nil, words: nil))
                continue
            }
            builder.use(old)
            let oldRoot = builder.build(before.expression, silenced: false)
            builder.use(new)
            let newRoot = builder.build(after.expression, silenced: false)
            guard oldRoot != newRoot, let (path, words) = builder.diagram.difference(oldRoot, newRoot) else {
                changes.append(GateChange(gate: name, kind: .unchanged, counterexample: nil, words: nil))
                continue
            }
            // Only what either gate reads: the diagram's other atoms belong to other gates.
            let readBefore = old.reads(gate: name)
            let readAfter = new.reads(gate: name)
            var example = builder.assumptions(path)
            example.capabilities = example.capabilities.filter {
                readBefore.capabilities.contains($0.key) || readAfter.capabilities.contains($0.key)
            }
            example.flags = example.flags.filter {
                readBefore.flags.contains($0.key) || readAfter.flags.contains($0.key)
            }
            changes.append(
                GateChange(
                    gate: name, kind: .decidesDifferently, counterexample: example,
                    words: (
                        OutcomeDiagram.gateWord(words.old), OutcomeDiagram.gateWord(words.new)
                    )))
        }
        gates = changes
    }
}

extension OutcomeDiagram {
    /// The gate word of a diagram word.
    static func gateWord(_ word: Word) -> String {
        switch word {
        case .holds: "holds"
        case .fails: "fails"
        case .undecided: "undecided"
        case .needsInteraction: "needsInteraction"
        }
    }

    /// Values for the atoms on a path where `left` and `right` come to different words, and
    /// those words; nil when they agree under every assignment.
    func difference(_ left: Int, _ right: Int) -> (path: [Int: Int], words: (old: Word, new: Word))? {
        var agreeing: Set<[Int]> = []
        func search(_ left: Int, _ right: Int, _ path: inout [Int: Int]) -> (old: Word, new: Word)? {
            if left == right { return nil }
            if isLeaf(left), isLeaf(right) { return (word(left), word(right)) }
            guard !agreeing.contains([left, right]) else { return nil }
            let atom = min(isLeaf(left) ? Int.max : nodes[left].atom, isLeaf(right) ? Int.max : nodes[right].atom)
            let count = max(
                !isLeaf(left) && nodes[left].atom == atom ? nodes[left].count : 0,
                !isLeaf(right) && nodes[right].atom == atom ? nodes[right].count : 0)
            for value in 0..<count {
                path[atom] = value
                let nextLeft = !isLeaf(left) && nodes[left].atom == atom ? nodes[left][value] : left
                let nextRight = !isLeaf(right) && nodes[right].atom == atom ? nodes[right][value] : right
                if let found = search(nextLeft, nextRight, &path) { return found }
            }
            path[atom] = nil
            agreeing.insert([left, right])
            return nil
        }
        var path: [Int: Int] = [:]
        guard let words = search(left, right, &path) else { return nil }
        return (path, words)
    }
}
