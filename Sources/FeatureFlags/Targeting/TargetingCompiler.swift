/// Turns a targeting rule from a flag file into a ``TargetingExpression``, resolving `$ref`s
/// to shared `$evaluators`, and rejecting what flagd would not evaluate: unknown operators,
/// wrong argument counts, malformed `fractional` or `sem_ver` arguments. Every error names
/// the line and column.
struct TargetingCompiler {
    /// The file's `$evaluators`, by name.
    let evaluators: [String: DocumentNode]
    private var resolving: [String] = []

    /// The most operations and values one rule may expand to with its `$ref`s in full, and the
    /// deepest it may nest: evaluation visits every one, recursively, on the caller's thread.
    static let maximumExpandedSize = 10_000
    static let maximumExpandedDepth = 128

    /// Each shared evaluator compiled once: its expression, expanded size and depth.
    private var compiled: [String: (expression: TargetingExpression, size: Int, depth: Int)] = [:]
    private var depth = 0
    private var expandedSize = 0
    private var deepest = 0

    init(evaluators: [String: DocumentNode]) {
        self.evaluators = evaluators
    }

    /// Compiles the shared evaluator `name` on its own, so a broken one is reported even when unused.
    mutating func compileEvaluator(named name: String) throws(FlagDefinitionError) {
        guard evaluators[name] != nil else { return }
        startRule()
        _ = try evaluator(named: name, at: nil)
    }

    /// Compiles one flag's targeting rule.
    mutating func compileRule(_ node: DocumentNode) throws(FlagDefinitionError) -> TargetingExpression {
        startRule()
        return try compile(node)
    }

    private mutating func startRule() {
        depth = 0
        expandedSize = 0
        deepest = 0
    }

    private mutating func count(size: Int, depth reached: Int, at location: FileLocation) throws(FlagDefinitionError) {
        expandedSize += size
        deepest = max(deepest, reached)
        guard reached <= Self.maximumExpandedDepth else {
            throw FlagDefinitionError(
                "the rule nests more than \(Self.maximumExpandedDepth) levels deep (counting $ref)", at: location)
        }
        guard expandedSize <= Self.maximumExpandedSize else {
            throw FlagDefinitionError(
                "the rule expands to more than \(Self.maximumExpandedSize) operations and values (counting each $ref in full)",
                at: location)
        }
    }

    mutating func compile(_ node: DocumentNode) throws(FlagDefinitionError) -> TargetingExpression {
        depth += 1
        defer { depth -= 1 }
        try count(size: 1, depth: depth, at: node.location)
        switch node.kind {
        case .null, .bool, .number, .string:
            return .literal(node.value)
        case .array(let elements):
            var compiled: [TargetingExpression] = []
            for element in elements { compiled.append(try compile(element)) }
            return Self.fold(compiled)
        case .object(let members):
            guard members.count == 1, let member = members.first else {
                if members.isEmpty { throw FlagDefinitionError("empty rule {}: a rule object needs one operator", at: node.location) }
                let keys = members.map { "\"\($0.key)\"" }.joined(separator: ", ")
                throw FlagDefinitionError("a rule object has exactly one operator, found \(members.count): \(keys)", at: node.location)
            }
            if member.key == "$ref" { return try resolve(member) }
            guard let op = TargetingOperator(rawValue: member.key) else {
                throw FlagDefinitionError(Self.unknownOperatorMessage(member.key), at: member.keyLocation)
            }
            return try compile(op, member)
        }
    }

    private mutating func resolve(_ member: DocumentNode.Member) throws(FlagDefinitionError) -> TargetingExpression {
        guard case .string(let name) = member.value.kind else {
            throw FlagDefinitionError("$ref must name a shared evaluator, found a \(member.value.typeName)", at: member.value.location)
        }
        guard evaluators[name] != nil else {
            let known = evaluators.keys.sorted().joined(separator: ", ")
            throw FlagDefinitionError(
                "$ref \"\(name)\" names no entry in $evaluators" + (known.isEmpty ? "" : " (defined: \(known))"),
                at: member.value.location)
        }
        return try evaluator(named: name, at: member.value.location)
    }

    /// The compiled shared evaluator `name`, compiled once however often it is used.
    private mutating func evaluator(named name: String, at location: FileLocation?) throws(FlagDefinitionError)
        -> TargetingExpression
    {
        if let done = compiled[name] {
            try count(size: done.size, depth: depth + done.depth, at: location ?? evaluators[name]!.location)
            return done.expression
        }
        guard !resolving.contains(name) else {
            throw FlagDefinitionError(
                "$ref cycle: " + (resolving + [name]).joined(separator: " -> "), at: location ?? evaluators[name]!.location)
        }
        resolving.append(name)
        defer { resolving.removeLast() }
        let (sizeBefore, deepestBefore) = (expandedSize, deepest)
        deepest = depth
        let expression = try compile(evaluators[name]!)
        compiled[name] = (expression, expandedSize - sizeBefore, deepest - depth)
        deepest = max(deepest, deepestBefore)
        return expression
    }

    private mutating func compile(_ op: TargetingOperator, _ member: DocumentNode.Member) throws(FlagDefinitionError) -> TargetingExpression {
        let argumentNodes: [DocumentNode]
        if case .array(let elements) = member.value.kind { argumentNodes = elements } else { argumentNodes = [member.value] }
        if let arity = op.arity, !arity.contains(argumentNodes.count) {
            let expected = arity.lowerBound == arity.upperBound ? "\(arity.lowerBound)" : (arity.upperBound == Int.max ? "at least \(arity.lowerBound)" : "\(arity.lowerBound) to \(arity.upperBound)")
            throw FlagDefinitionError(
                "\"\(op.rawValue)\" takes \(expected) argument\(expected == "1" ? "" : "s"), found \(argumentNodes.count)",
                at: member.keyLocation)
        }
        var arguments: [TargetingExpression] = []
        for node in argumentNodes { arguments.append(try compile(node)) }

        switch op {
        case .variable:
            let fallback = arguments.count > 1 ? arguments[1] : nil
            guard let path = arguments.first else { return .variable(path: [], fallback: nil) }
            switch path {
            case .literal(.string(let text)):
                return .variable(path: text.isEmpty ? [] : text.split(separator: ".", omittingEmptySubsequences: false).map(String.init), fallback: fallback)
            case .literal(.number(let index)):
                return .variable(path: [FlagValue.format(index)], fallback: fallback)
            case .literal(.null):
                return .variable(path: [], fallback: fallback)
            case .literal(let other):
                throw FlagDefinitionError("\"var\" takes a path string, found a \(other.typeName)", at: argumentNodes[0].location)
            default:
                return .computedVariable(path, fallback: fallback)
            }
        case .semanticVersion:
            if case .literal(let symbol) = arguments[1] {
                guard case .string(let text) = symbol, SemanticVersionOperator(rawValue: text) != nil else {
                    let allowed = SemanticVersionOperator.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
                    throw FlagDefinitionError("sem_ver operator \(symbol) is not one of \(allowed)", at: argumentNodes[1].location)
                }
            }
            for index in [0, 2] {
                if case .literal(.string(let text)) = arguments[index], SemanticVersion(text) == nil {
                    throw FlagDefinitionError("\"\(text)\" is not a semantic version", at: argumentNodes[index].location)
                }
            }
            if case .literal(.string(let symbol)) = arguments[1], let comparison = SemanticVersionOperator(rawValue: symbol),
                case .literal(.string(let text)) = arguments[2], let target = SemanticVersion(text)
            {
                return .semanticVersion(arguments[0], comparison, target)
            }
        case .fractional:
            let first = argumentNodes.first.map { node -> Bool in if case .array = node.kind { return true } else { return false } } ?? false
            for (index, node) in argumentNodes.enumerated() where index > 0 || first {
                try Self.checkDistribution(node)
            }
        default:
            break
        }
        return .operation(op, arguments)
    }

    /// A `fractional` bucket must be `[variant]` or `[variant, weight]` with a whole, non-negative weight.
    private static func checkDistribution(_ node: DocumentNode) throws(FlagDefinitionError) {
        guard case .array(let entry) = node.kind, (1...2).contains(entry.count) else {
            throw FlagDefinitionError("a fractional bucket is [variant, weight], found \(node.value)", at: node.location)
        }
        if entry.count == 2, case .number(let weight) = entry[1].kind {
            guard weight >= 0, weight.rounded(.towardZero) == weight, weight <= Double(Int32.max) else {
                throw FlagDefinitionError("a fractional weight is a whole number from 0 to \(Int32.max), found \(FlagValue.format(weight))", at: entry[1].location)
            }
        } else if entry.count == 2, case .object = entry[1].kind {
            // computed weight: checked when evaluated
        } else if entry.count == 2, case .null = entry[1].kind {
        } else if entry.count == 2 {
            throw FlagDefinitionError("a fractional weight is a number, found a \(entry[1].typeName)", at: entry[1].location)
        }
    }

    private static func fold(_ elements: [TargetingExpression]) -> TargetingExpression {
        var values: [FlagValue] = []
        for element in elements {
            guard case .literal(let value) = element else { return .array(elements) }
            values.append(value)
        }
        return .literal(.list(values))
    }

    private static func unknownOperatorMessage(_ name: String) -> String {
        if name == "fractionalEvaluation" { return "\"fractionalEvaluation\" was removed from flagd; use \"fractional\"" }
        let known = TargetingOperator.allCases.map(\.rawValue)
        let close = known.filter { $0.lowercased() == name.lowercased() || $0.replacingUnderscores == name.replacingUnderscores }
        return "unknown operator \"\(name)\"" + (close.first.map { "; did you mean \"\($0)\"?" } ?? "")
    }
}

extension String {
    fileprivate var replacingUnderscores: String { lowercased().filter { $0 != "_" && $0 != "-" } }
}
