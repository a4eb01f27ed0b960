import ConfigurationFiles

/// Turns a targeting rule from a flag file into a ``TargetingExpression``, resolving `$ref`s
/// to shared `$evaluators`. Every problem names the line and column, in one of two kinds:
///
/// - fatal (thrown): flagd cannot evaluate the rule at all (an unknown operator, a `$ref` to
///   nothing, a JsonLogic operator with the wrong argument count), so the flag is a PARSE_ERROR;
/// - recorded in ``problems``: flagd evaluates the rule, but one of its own operators returns
///   null (a `sem_ver` operator that does not exist, `starts_with` with one argument) or reads
///   a weight leniently (negative counts as 0). The rule compiles and behaves as in flagd;
///   `capctl validate` reports the problem.
struct TargetingCompiler {
    /// The file's `$evaluators`, by name.
    let evaluators: [String: DocumentNode]
    /// Problems that do not stop evaluation, in the order found.
    private(set) var problems: [ConfigurationError] = []
    private var noted: Set<ConfigurationError> = []
    private var resolving: [String] = []

    /// The most operations and values one rule may expand to with its `$ref`s in full, and the
    /// deepest it may nest: evaluation visits every one, recursively, on the caller's thread.
    static let maximumExpandedSize = 10_000
    static let maximumExpandedDepth = 128

    /// Each shared evaluator compiled once: its expression, expanded size and depth, or why it failed.
    private var compiled:
        [String: Result<(expression: TargetingExpression, size: Int, depth: Int), ConfigurationError>] = [:]
    private var depth = 0
    /// Set when a size or depth limit was passed: that depends on the rule, not on the evaluator compiled.
    private var limitExceeded = false
    private var expandedSize = 0
    private var deepest = 0

    /// How the rules' `fractional` operators bucket.
    let bucketing: FractionalBucketing

    init(evaluators: [String: DocumentNode], bucketing: FractionalBucketing = .stringHash) {
        self.evaluators = evaluators
        self.bucketing = bucketing
    }

    /// Compiles the shared evaluator `name` on its own, so a broken one is reported even when unused.
    mutating func compileEvaluator(named name: String) throws(ConfigurationError) {
        guard evaluators[name] != nil else { return }
        startRule()
        _ = try evaluator(named: name, at: nil)
    }

    /// Compiles one flag's targeting rule.
    mutating func compileRule(_ node: DocumentNode) throws(ConfigurationError) -> TargetingExpression {
        startRule()
        return try compile(node)
    }

    private mutating func startRule() {
        limitExceeded = false
        depth = 0
        expandedSize = 0
        deepest = 0
    }

    private mutating func count(size: Int, depth reached: Int, at location: FileLocation) throws(ConfigurationError) {
        expandedSize += size
        deepest = max(deepest, reached)
        guard reached <= Self.maximumExpandedDepth else {
            limitExceeded = true
            throw ConfigurationError(
                "the rule nests more than \(Self.maximumExpandedDepth) levels deep (counting $ref)", at: location)
        }
        guard expandedSize <= Self.maximumExpandedSize else {
            limitExceeded = true
            throw ConfigurationError(
                "the rule expands to more than \(Self.maximumExpandedSize) operations and values (counting each $ref in full)",
                at: location)
        }
    }

    mutating func compile(_ node: DocumentNode) throws(ConfigurationError) -> TargetingExpression {
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
                // JsonLogic reads an object without an operator as data.
                if members.isEmpty { return .literal(.structure([:])) }
                let keys = members.map { "\"\($0.key)\"" }.joined(separator: ", ")
                throw ConfigurationError(
                    "a rule object has exactly one operator, found \(members.count): \(keys)", at: node.location)
            }
            if member.key == "$ref" { return try resolve(member) }
            guard let op = TargetingOperator(rawValue: member.key) else {
                throw ConfigurationError(Self.unknownOperatorMessage(member.key), at: member.keyLocation)
            }
            return try compile(op, member)
        }
    }

    private mutating func resolve(_ member: DocumentNode.Member) throws(ConfigurationError) -> TargetingExpression {
        guard case .string(let name) = member.value.kind else {
            throw ConfigurationError(
                "$ref must name a shared evaluator, found \(member.value.describedType)", at: member.value.location)
        }
        guard evaluators[name] != nil else {
            let known = evaluators.keys.sorted().joined(separator: ", ")
            throw ConfigurationError(
                "$ref \"\(name)\" names no entry in $evaluators" + (known.isEmpty ? "" : " (defined: \(known))"),
                at: member.value.location)
        }
        return try evaluator(named: name, at: member.value.location)
    }

    /// The compiled shared evaluator `name`, compiled once however often it is used.
    private mutating func evaluator(named name: String, at location: FileLocation?) throws(ConfigurationError)
        -> TargetingExpression
    {
        if let done = compiled[name] {
            switch done {
            case .success(let done):
                try count(size: done.size, depth: depth + done.depth, at: location ?? evaluators[name]!.location)
                return done.expression
            case .failure(let error):
                throw error
            }
        }
        guard !resolving.contains(name) else {
            throw ConfigurationError(
                "$ref cycle: " + (resolving + [name]).joined(separator: " -> "),
                at: location ?? evaluators[name]!.location)
        }
        resolving.append(name)
        defer { resolving.removeLast() }
        let (sizeBefore, deepestBefore) = (expandedSize, deepest)
        deepest = depth
        let expression: TargetingExpression
        do {
            expression = try compile(evaluators[name]!)
        } catch {
            // Size and depth limits depend on where the evaluator is used, so only its own errors are kept.
            if resolving.count == 1, !limitExceeded { compiled[name] = .failure(error) }
            throw error
        }
        compiled[name] = .success((expression, expandedSize - sizeBefore, deepest - depth))
        deepest = max(deepest, deepestBefore)
        return expression
    }

    private mutating func compile(_ op: TargetingOperator, _ member: DocumentNode.Member) throws(ConfigurationError)
        -> TargetingExpression
    {
        let argumentNodes: [DocumentNode]
        if case .array(let elements) = member.value.kind {
            argumentNodes = elements
        } else {
            argumentNodes = [member.value]
        }
        if let arity = op.arity, !arity.contains(argumentNodes.count) {
            let expected =
                arity.lowerBound == arity.upperBound
                ? "\(arity.lowerBound)"
                : (arity.upperBound == Int.max
                    ? "at least \(arity.lowerBound)" : "\(arity.lowerBound) to \(arity.upperBound)")
            let message =
                "\"\(op.rawValue)\" takes \(expected) argument\(expected == "1" ? "" : "s"), found \(argumentNodes.count)"
            guard op.isFlagdOperator else { throw ConfigurationError(message, at: member.keyLocation) }
            note(message, at: member.keyLocation)
        }
        var arguments: [TargetingExpression] = []
        for node in argumentNodes { arguments.append(try compile(node)) }

        switch op {
        case .variable:
            let fallback = arguments.count > 1 ? arguments[1] : nil
            guard let path = arguments.first else { return .variable(path: [], fallback: nil) }
            switch path {
            case .literal(.string(let text)):
                return .variable(
                    path: text.isEmpty
                        ? [] : text.split(separator: ".", omittingEmptySubsequences: false).map(String.init),
                    fallback: fallback)
            case .literal(.number(let index)):
                return .variable(path: [FlagValue.format(index)], fallback: fallback)
            case .literal(.null):
                return .variable(path: [], fallback: fallback)
            case .literal(let other):
                throw ConfigurationError(
                    "\"var\" takes a path string, found \(other.describedType)", at: argumentNodes[0].location)
            default:
                return .computedVariable(path, fallback: fallback)
            }
        case .semanticVersion:
            guard arguments.count == 3 else { break }
            if case .literal(let symbol) = arguments[1] {
                if case .string(let text) = symbol, SemanticVersionOperator(rawValue: text) != nil {
                } else {
                    let allowed = SemanticVersionOperator.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
                    note("sem_ver operator \(symbol) is not one of \(allowed)", at: argumentNodes[1].location)
                }
            }
            for index in [0, 2] {
                if case .literal(let value) = arguments[index], value != .null, SemanticVersion(value: value) == nil {
                    note("\(value) is not a semantic version", at: argumentNodes[index].location)
                }
            }
            if case .literal(.string(let symbol)) = arguments[1],
                let comparison = SemanticVersionOperator(rawValue: symbol),
                case .literal(let text) = arguments[2], let target = SemanticVersion(value: text)
            {
                return .semanticVersion(arguments[0], comparison, target)
            }
        case .fractional:
            guard let first = argumentNodes.first else { break }
            let isShortForm: Bool
            if case .array = first.kind { isShortForm = true } else { isShortForm = false }
            for node in argumentNodes.dropFirst(isShortForm ? 0 : 1) { checkBucket(node) }
            let literalWeights = argumentNodes.dropFirst(isShortForm ? 0 : 1).map { node -> Double? in
                guard case .array(let entry) = node.kind else { return nil }
                guard entry.count == 2 else { return 1 }
                if case .number(let weight) = entry[1].kind { return max(0, weight.rounded(.towardZero)) }
                return nil
            }
            if !literalWeights.isEmpty, !literalWeights.contains(nil), literalWeights.reduce(0, { $0 + $1! }) == 0 {
                note("the fractional weights add up to 0, so flagd evaluates this rule to null", at: member.keyLocation)
            }
            if argumentNodes.count == (isShortForm ? 0 : 1) {
                note("\"fractional\" needs at least one bucket", at: member.keyLocation)
            }
            return .fractional(
                seed: isShortForm ? nil : arguments[0], buckets: Array(arguments.dropFirst(isShortForm ? 0 : 1)),
                bucketing: bucketing)
        default:
            break
        }
        return .operation(op, arguments)
    }

    /// A `fractional` bucket is `[variant]` or `[variant, weight]` with a whole, non-negative
    /// weight. flagd reads a negative weight as 0 and drops a fraction; anything else makes the
    /// rule null when evaluated.
    private mutating func checkBucket(_ node: DocumentNode) {
        guard case .array(let entry) = node.kind, (1...2).contains(entry.count) else {
            if case .object = node.kind { return }  // computed: checked when evaluated
            note("a fractional bucket is [variant, weight], found \(node.value)", at: node.location)
            return
        }
        if case .array = entry[0].kind {
            note(
                "a fractional bucket's variant is a string, Boolean, number or null, found an array",
                at: entry[0].location)
        }
        guard entry.count == 2 else { return }
        switch entry[1].kind {
        case .number(let weight):
            if weight < 0 {
                note(
                    "a fractional weight is not negative; flagd counts \(FlagValue.format(weight)) as 0",
                    at: entry[1].location)
            } else if weight.rounded(.towardZero) != weight {
                note(
                    "a fractional weight is a whole number; flagd drops the fraction of \(FlagValue.format(weight))",
                    at: entry[1].location)
            } else if weight > Double(Int32.max) {
                note(
                    "fractional weights add up to at most \(Int32.max), found \(FlagValue.format(weight))",
                    at: entry[1].location)
            }
        case .object:
            break  // computed: checked when evaluated
        default:
            note("a fractional weight is a number, found \(entry[1].describedType)", at: entry[1].location)
        }
    }

    private mutating func note(_ message: String, at location: FileLocation) {
        let problem = ConfigurationError(message, at: location)
        if noted.insert(problem).inserted { problems.append(problem) }
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
        if name == "fractionalEvaluation" {
            return "\"fractionalEvaluation\" was removed from flagd; use \"fractional\""
        }
        let known = TargetingOperator.allCases.map(\.rawValue)
        let close =
            known.first { $0.replacingUnderscores == name.replacingUnderscores }
            ?? NameSuggestion.closest(to: name, among: known)
        return "unknown operator \"\(name)\"" + (close.map { "; did you mean \"\($0)\"?" } ?? "")
    }
}

extension String {
    fileprivate var replacingUnderscores: String { lowercased().filter { $0 != "_" && $0 != "-" } }
}
