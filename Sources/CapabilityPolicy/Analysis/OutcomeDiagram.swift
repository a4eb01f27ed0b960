/// A gate as a multi-valued decision diagram: each branch tests one atom (a capability's status,
/// a flag's value) and each leaf is a gate word. Nodes are shared and reduced (a node whose
/// branches all lead to the same place is that place), so two requirements that decide alike
/// under every assignment are the same node, and an atom absent from a gate's diagram never
/// changes its outcome. All-of is the least of its parts' words and any-of the greatest, in the
/// order fails < undecided < needsInteraction < holds (Semantics rules 15 and 18); not swaps
/// holds and fails.
struct OutcomeDiagram {
    /// A gate word, ordered as all-of and any-of combine them.
    enum Word: Int, CaseIterable, Comparable {
        case fails, undecided, needsInteraction, holds

        static func < (left: Word, right: Word) -> Bool { left.rawValue < right.rawValue }
    }

    /// A node: a leaf (a word) or a test of `atom` with one branch per value (at most four: a
    /// capability's statuses). Four fields rather than an array: a diagram of tens of thousands
    /// of nodes is built without an allocation per node.
    struct Node: Hashable {
        let atom: Int
        let count: Int
        let first: Int
        let second: Int
        let third: Int
        let fourth: Int

        init(atom: Int, branches: [Int]) {
            self.atom = atom
            count = branches.count
            first = branches.count > 0 ? branches[0] : -1
            second = branches.count > 1 ? branches[1] : -1
            third = branches.count > 2 ? branches[2] : -1
            fourth = branches.count > 3 ? branches[3] : -1
        }

        subscript(value: Int) -> Int {
            switch value {
            case 0: first
            case 1: second
            case 2: third
            default: fourth
            }
        }

        var branches: [Int] { (0..<count).map { self[$0] } }
    }

    /// Leaves are the first four ids, one per word; tests follow.
    private(set) var nodes: [Node] = Word.allCases.map { Node(atom: Int.max, branches: [$0.rawValue]) }
    private var unique: [Node: Int] = [:]
    private var combined: [Combination: Int] = [:]

    private struct Combination: Hashable {
        let all: Bool
        let left: Int
        let right: Int
    }

    static func leaf(_ word: Word) -> Int { word.rawValue }

    func isLeaf(_ id: Int) -> Bool { id < Word.allCases.count }

    func word(_ id: Int) -> Word { Word(rawValue: id)! }

    /// A test of `atom` whose branch `i` leads to `branches[i]`.
    mutating func test(_ atom: Int, _ branches: [Int]) -> Int {
        if let first = branches.first, branches.allSatisfy({ $0 == first }) { return first }
        let node = Node(atom: atom, branches: branches)
        if let id = unique[node] { return id }
        nodes.append(node)
        unique[node] = nodes.count - 1
        return nodes.count - 1
    }

    /// All-of (`all`) or any-of of two diagrams.
    mutating func combine(all: Bool, _ left: Int, _ right: Int) -> Int {
        if isLeaf(left), isLeaf(right) {
            return Self.leaf(all ? min(word(left), word(right)) : max(word(left), word(right)))
        }
        // A deciding leaf decides alone: fails under all-of, holds under any-of.
        let decider = Self.leaf(all ? .fails : .holds)
        if left == decider || right == decider { return decider }
        let neutral = Self.leaf(all ? .holds : .fails)
        if left == neutral { return right }
        if right == neutral { return left }
        let key = Combination(all: all, left: min(left, right), right: max(left, right))
        if let done = combined[key] { return done }
        let atom = min(nodes[left].atom, nodes[right].atom)
        let count = max(
            nodes[left].atom == atom ? nodes[left].count : 0, nodes[right].atom == atom ? nodes[right].count : 0)
        var branches: [Int] = []
        for value in 0..<count {
            branches.append(combine(all: all, branch(left, atom, value), branch(right, atom, value)))
        }
        let result = test(atom, branches)
        combined[key] = result
        return result
    }

    /// The negation: holds and fails swapped.
    mutating func negate(_ id: Int, memo: inout [Int: Int]) -> Int {
        if isLeaf(id) {
            switch word(id) {
            case .holds: return Self.leaf(.fails)
            case .fails: return Self.leaf(.holds)
            case let other: return Self.leaf(other)
            }
        }
        if let done = memo[id] { return done }
        let node = nodes[id]
        var branches: [Int] = []
        for value in 0..<node.count { branches.append(negate(node[value], memo: &memo)) }
        let result = test(node.atom, branches)
        memo[id] = result
        return result
    }

    /// Where `id` leads when `atom` has `value` (itself when it does not test `atom`).
    private func branch(_ id: Int, _ atom: Int, _ value: Int) -> Int {
        isLeaf(id) || nodes[id].atom != atom ? id : nodes[id][value]
    }

    /// The words some assignment gives.
    func reachableWords(_ root: Int) -> Set<Word> {
        var seen: Set<Int> = []
        var words: Set<Word> = []
        var stack = [root]
        while let id = stack.popLast() {
            guard seen.insert(id).inserted else { continue }
            if isLeaf(id) { words.insert(word(id)) } else { stack += nodes[id].branches }
        }
        return words
    }

    /// The atoms the diagram tests: those that can change its word.
    func support(_ root: Int) -> Set<Int> {
        var seen: Set<Int> = []
        var atoms: Set<Int> = []
        var stack = [root]
        while let id = stack.popLast() {
            guard !isLeaf(id), seen.insert(id).inserted else { continue }
            atoms.insert(nodes[id].atom)
            stack += nodes[id].branches
        }
        return atoms
    }

    /// Values for the atoms tested on a path to `word` that costs least by `cost(atom, value)`
    /// (atoms not on the path are free to be anything), or nil when no assignment gives `word`.
    func cheapestPath(_ root: Int, to word: Word, cost: (Int, Int) -> Int) -> [Int: Int]? {
        var best: [Int: (cost: Int, value: Int)?] = [:]
        func solve(_ id: Int) -> Int? {
            if isLeaf(id) { return self.word(id) == word ? 0 : nil }
            if let known = best[id] { return known?.cost }
            var choice: (cost: Int, value: Int)?
            for value in 0..<nodes[id].count {
                guard let below = solve(nodes[id][value]) else { continue }
                let total = below + cost(nodes[id].atom, value)
                if choice == nil || total < choice!.cost { choice = (total, value) }
            }
            best[id] = .some(choice)
            return choice?.cost
        }
        guard solve(root) != nil else { return nil }
        var path: [Int: Int] = [:]
        var id = root
        while !isLeaf(id), let choice = best[id] ?? nil {
            path[nodes[id].atom] = choice.value
            id = nodes[id][choice.value]
        }
        return path
    }
}
