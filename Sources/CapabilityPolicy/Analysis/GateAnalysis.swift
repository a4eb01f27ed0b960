import Capabilities
public import ConfigurationFiles
public import FeatureFlags

/// What a gate can come to over every assignment of statuses to its capabilities and of values
/// to its flags (`capctl analyze GATE`), computed exactly on a decision diagram of the gate
/// rather than by trying each of the 4ⁿ assignments: whether it can hold, fail, be undecided or
/// ask; an assignment for each (holding with as few capabilities authorized as possible, failing
/// with as few refused); the capabilities and flags that never change its outcome; parts of an
/// all-of or any-of that the other parts make useless; and a `not` over a part that asks.
///
/// A capability is authorized, denied or unavailable, and also notDetermined where its kind may
/// ask (`CapabilityKind.mayAsk`: pam and polkit). A flag is on, off, or not a Boolean.
///
/// ```swift
/// let analysis = try GateAnalysis(gate: "export", in: policy.policy)
/// if !analysis.canHold { print("export can never hold") }
/// print(analysis.holdsWhen?.capabilities ?? [:])
/// ```
public struct GateAnalysis: Sendable {
    /// The gate analyzed.
    public let gate: String
    /// The capabilities it reads, directly or through other gates, in the order first read.
    public let capabilities: [String]
    /// The flags it reads through `flag:` references, in the order first read.
    public let flags: [String]
    /// Whether some assignment makes it hold.
    public var canHold: Bool { holdsWhen != nil }
    /// Whether some assignment makes it fail.
    public var canFail: Bool { failsWhen != nil }
    /// Whether some assignment leaves it undecided.
    public var canBeUndecided: Bool { undecidedWhen != nil }
    /// Whether some assignment makes it need a login (nobody asked).
    public var canAsk: Bool { asksWhen != nil }
    /// An assignment under which it holds, with as few capabilities authorized as possible.
    public let holdsWhen: Assumptions?
    /// An assignment under which it fails, with as few capabilities not authorized as possible.
    public let failsWhen: Assumptions?
    /// An assignment under which it is undecided.
    public let undecidedWhen: Assumptions?
    /// An assignment under which it needs a login.
    public let asksWhen: Assumptions?
    /// Capabilities and flags (`flag NAME`) that never change its outcome.
    public let neverMatters: [String]
    /// Parts of an all-of or any-of that never change what it comes to, each with why.
    public let uselessParts: [String]
    /// Each `not` over a part that can ask: asking can never make a `not` hold.
    public let negatedAsking: [String]

    /// The value the diagram gives a flag that is not a Boolean.
    public static let notABoolean: FlagValue = .string("not-a-boolean")

    static let statuses: [CapabilityStatus.Kind] = [.authorized, .denied, .unavailable, .notDetermined]
    static let flagValues: [FlagValue] = [.bool(true), .bool(false), notABoolean]

    /// Analyzes `gate` of `policy`.
    public init(gate: String, in policy: Policy) throws(ConfigurationError) {
        guard let declaration = policy.gates[gate] else {
            throw ConfigurationError("no gate \"\(gate)\" in the policy")
        }
        var builder = Builder(policy: policy)
        let root = builder.build(declaration.expression, silenced: false)
        self.gate = gate
        capabilities = builder.atoms.compactMap { $0.isFlag ? nil : $0.name }
        flags = builder.atoms.compactMap { $0.isFlag ? $0.name : nil }
        let diagram = builder.diagram
        let atoms = builder.atoms
        func assumptions(for word: OutcomeDiagram.Word, cost: (Atom, Int) -> Int, rest: (Atom) -> Int)
            -> Assumptions?
        {
            guard let path = diagram.cheapestPath(root, to: word, cost: { cost(atoms[$0], $1) }) else { return nil }
            var assumptions = Assumptions()
            for (index, atom) in atoms.enumerated() {
                let value = path[index] ?? rest(atom)
                if atom.isFlag {
                    assumptions.flags[atom.name] = Self.flagValues[value]
                } else {
                    assumptions.capabilities[atom.name] = Self.statuses[value]
                }
            }
            return assumptions
        }
        // Statuses by index: 0 authorized, 1 denied. Flags: 0 on, 1 off.
        let fewestAuthorized: (Atom, Int) -> Int = { atom, value in !atom.isFlag && value == 0 ? 1 : 0 }
        let fewestRefused: (Atom, Int) -> Int = { atom, value in !atom.isFlag && value != 0 ? 1 : 0 }
        holdsWhen = assumptions(for: .holds, cost: fewestAuthorized, rest: { _ in 1 })
        failsWhen = assumptions(for: .fails, cost: fewestRefused, rest: { _ in 0 })
        undecidedWhen = assumptions(for: .undecided, cost: fewestAuthorized, rest: { _ in 1 })
        asksWhen = assumptions(for: .needsInteraction, cost: fewestAuthorized, rest: { _ in 1 })
        let support = diagram.support(root)
        neverMatters = atoms.indices.filter { !support.contains($0) }.map {
            atoms[$0].isFlag ? "flag \(atoms[$0].name)" : atoms[$0].name
        }
        var findings = Findings()
        builder.inspect(declaration.expression, silenced: false, into: &findings)
        uselessParts = findings.useless
        negatedAsking = findings.negatedAsking
    }

    /// A capability or a flag the diagram tests.
    struct Atom: Hashable {
        let name: String
        let isFlag: Bool
    }

    struct Findings {
        var useless: [String] = []
        var negatedAsking: [String] = []
    }

    /// Builds a gate's diagram, each gate it uses once per silenced or not.
    struct Builder {
        private(set) var policy: Policy
        var diagram = OutcomeDiagram()
        var atoms: [Atom] = []
        private var atomIndex: [Atom: Int] = [:]
        private var gates: [String: Int] = [:]
        private var asking: [Int: Bool] = [:]
        /// Capabilities taken to be able to ask whatever their kind: a replay whose record gives
        /// one `notDetermined` (a what-if can) must have that branch to follow.
        private let askingAnyway: Set<String>

        init(policy: Policy, askingAnyway: Set<String> = []) {
            self.policy = policy
            self.askingAnyway = askingAnyway
        }

        /// Builds further gates from `policy` (their names may mean other requirements there),
        /// in the same diagram over the same atoms: how two policies' gates are compared.
        mutating func use(_ policy: Policy) {
            self.policy = policy
            gates = [:]
        }

        /// An assignment of every atom: `path`'s values, the others denied (a capability) or off (a flag).
        func assumptions(_ path: [Int: Int]) -> Assumptions {
            var assumptions = Assumptions()
            for (index, atom) in atoms.enumerated() {
                let value = path[index] ?? 1
                if atom.isFlag {
                    assumptions.flags[atom.name] = GateAnalysis.flagValues[value]
                } else {
                    assumptions.capabilities[atom.name] = GateAnalysis.statuses[value]
                }
            }
            return assumptions
        }

        private mutating func atom(_ atom: Atom) -> Int {
            if let index = atomIndex[atom] { return index }
            atoms.append(atom)
            atomIndex[atom] = atoms.count - 1
            return atoms.count - 1
        }

        mutating func build(_ expression: GateExpression, silenced: Bool) -> Int {
            switch expression {
            case .capability(let name, _):
                let index = atom(Atom(name: name, isFlag: false))
                var branches = [
                    OutcomeDiagram.leaf(.holds), OutcomeDiagram.leaf(.fails), OutcomeDiagram.leaf(.undecided),
                ]
                // Rule 16: what could pass only by asking does not hold where nobody may ask.
                let kind = policy.capabilities[name].flatMap { policy.environment.kind(named: $0.kind) }
                // An atom keeps the values it was first given (two policies compared may define a
                // capability of the same name with kinds that differ in whether they ask).
                let mayAsk = asking[index] ?? (askingAnyway.contains(name) || (kind?.mayAsk ?? true))
                asking[index] = mayAsk
                if mayAsk {
                    branches.append(OutcomeDiagram.leaf(silenced ? .fails : .needsInteraction))
                }
                return diagram.test(index, branches)
            case .flag(let key, _):
                let index = atom(Atom(name: key, isFlag: true))
                return diagram.test(
                    index,
                    [OutcomeDiagram.leaf(.holds), OutcomeDiagram.leaf(.fails), OutcomeDiagram.leaf(.undecided)])
            case .gate(let name, _):
                let key = name + (silenced ? " silent" : "")
                if let done = gates[key] { return done }
                guard let declaration = policy.gates[name] else { return OutcomeDiagram.leaf(.undecided) }
                let built = build(declaration.expression, silenced: silenced)
                gates[key] = built
                return built
            case .allOf(let parts):
                return combine(parts, all: true, silenced: silenced)
            case .anyOf(let parts):
                return combine(parts, all: false, silenced: silenced)
            case .not(let part):
                var memo: [Int: Int] = [:]
                return diagram.negate(build(part, silenced: silenced), memo: &memo)
            case .silent(let part):
                return build(part, silenced: true)
            }
        }

        private mutating func combine(_ parts: [GateExpression], all: Bool, silenced: Bool) -> Int {
            var result = OutcomeDiagram.leaf(all ? .holds : .fails)
            for part in parts { result = diagram.combine(all: all, result, build(part, silenced: silenced)) }
            return result
        }

        /// Finds useless parts and negations over asking parts in `expression` (not in the gates it uses).
        mutating func inspect(_ expression: GateExpression, silenced: Bool, into findings: inout Findings) {
            switch expression {
            case .capability, .flag, .gate:
                return
            case .allOf(let parts), .anyOf(let parts):
                let all: Bool = if case .allOf = expression { true } else { false }
                let whole = build(expression, silenced: silenced)
                if parts.count > 1 {
                    for index in parts.indices {
                        var others = parts
                        let removed = others.remove(at: index)
                        guard combine(others, all: all, silenced: silenced) == whole else { continue }
                        findings.useless.append(
                            "in \(expression): \(removed) never changes the outcome (the other parts decide alone)")
                    }
                }
                for part in parts { inspect(part, silenced: silenced, into: &findings) }
            case .not(let part):
                // Built first: the diagram grows while building, and a copy taken before would not know the node.
                let built = build(part, silenced: false)
                if !silenced, diagram.reachableWords(built).contains(.needsInteraction) {
                    findings.negatedAsking.append(
                        "\(expression): \(part) can ask, and a login can never make a not hold (write not: { silent: ... })"
                    )
                }
                inspect(part, silenced: silenced, into: &findings)
            case .silent(let part):
                inspect(part, silenced: true, into: &findings)
            }
        }
    }
}

extension GateAnalysis {
    /// Every word each node of `gate`'s decision tree can come to, by the node's path of child
    /// indices in the explanation tree ("" the gate, "0.1" its first part's second part): what
    /// `capctl test --coverage` counts, in explanation words (passed, failed, undecided, and
    /// notChecked for a part that would ask).
    static func nodeOutcomes(gate: String, in policy: Policy) -> [String: Set<String>] {
        var builder = Builder(policy: policy)
        var outcomes: [String: Set<String>] = [:]
        guard let declaration = policy.gates[gate] else { return [:] }
        builder.record(gate: declaration.expression, path: "", silenced: false, into: &outcomes)
        return outcomes
    }

}

extension GateAnalysis.Builder {
    static func explanationWord(_ word: OutcomeDiagram.Word) -> String {
        switch word {
        case .holds: "passed"
        case .fails: "failed"
        case .undecided: "undecided"
        case .needsInteraction: "notChecked"
        }
    }

    /// A gate node: its parts are its all-of's or any-of's, else the one requirement it has.
    mutating func record(
        gate expression: GateExpression, path: String, silenced: Bool, into outcomes: inout [String: Set<String>]
    ) {
        let built = build(expression, silenced: silenced)
        let words = diagram.reachableWords(built)
        outcomes[path, default: []].formUnion(words.map(Self.explanationWord))
        let parts: [GateExpression] =
            switch expression {
            case .allOf(let parts), .anyOf(let parts): parts
            default: [expression]
            }
        for (index, part) in parts.enumerated() {
            record(part, path: path.isEmpty ? "\(index)" : "\(path).\(index)", silenced: silenced, into: &outcomes)
        }
    }

    mutating func record(
        _ expression: GateExpression, path: String, silenced: Bool, into outcomes: inout [String: Set<String>]
    ) {
        if case .gate(let name, _) = expression, let declaration = policy.gates[name] {
            record(gate: declaration.expression, path: path, silenced: silenced, into: &outcomes)
            return
        }
        let built = build(expression, silenced: silenced)
        let words = diagram.reachableWords(built)
        outcomes[path, default: []].formUnion(words.map(Self.explanationWord))
        let (parts, partsSilenced): ([GateExpression], Bool) =
            switch expression {
            case .allOf(let parts), .anyOf(let parts): (parts, silenced)
            case .not(let part): ([part], silenced)
            case .silent(let part): ([part], true)
            case .capability, .flag, .gate: ([], silenced)
            }
        for (index, part) in parts.enumerated() {
            record(part, path: "\(path).\(index)", silenced: partsSilenced, into: &outcomes)
        }
    }
}
