/// A targeting rule compiled once when its file loads: operators resolved, variable paths
/// split, constant arrays folded, so evaluation only walks the tree.
indirect enum TargetingExpression: Sendable {
    case literal(FlagValue)
    case array([TargetingExpression])
    /// `var` with a constant path (split at dots; empty for the whole data).
    case variable(path: [String], fallback: TargetingExpression?)
    /// `var` whose path is computed.
    case computedVariable(TargetingExpression, fallback: TargetingExpression?)
    case operation(TargetingOperator, [TargetingExpression])
    /// `sem_ver` against a constant version with a constant operator, parsed once.
    case semanticVersion(TargetingExpression, SemanticVersionOperator, SemanticVersion)
    /// `fractional`; `seed` is nil in the short form, which buckets on the flag and targeting keys.
    case fractional(seed: TargetingExpression?, buckets: [TargetingExpression], bucketing: FractionalBucketing)

    /// Whether evaluating this may read `$flagd.timestamp`, so the clock is read only when needed.
    var readsTimestamp: Bool {
        switch self {
        case .literal: false
        case .array(let elements): elements.contains { $0.readsTimestamp }
        case .variable(let path, let fallback):
            (path.first == "$flagd" && (path.count == 1 || path[1] == "timestamp")) || path.isEmpty
                || fallback?.readsTimestamp == true
        case .computedVariable: true
        case .operation(_, let arguments): arguments.contains { $0.readsTimestamp }
        case .semanticVersion(let version, _, _): version.readsTimestamp
        case .fractional(let seed, let buckets, _):
            seed?.readsTimestamp == true || buckets.contains { $0.readsTimestamp }
        }
    }
}

/// A rule could not be evaluated: it read an attribute the context could not build completely
/// (``incompleteAttribute`` set), which is an evaluation error, never a default. (flagd's own
/// operators, `fractional`, `sem_ver`, `starts_with` and `ends_with`, do not fail on arguments they
/// cannot use: they evaluate to null and the rule goes on, as flagd's do: its Go evaluator's
/// operators return nil, and flagd-testbed's `@operator-errors` scenarios expect it.)
struct TargetingFailure: Error, Sendable {
    /// The incomplete attribute read, and why it is incomplete.
    var incompleteAttribute: (name: String, reason: String)?

    init() {}

    init(incomplete name: String, _ reason: String) {
        incompleteAttribute = (name, reason)
    }
}

/// What a targeting rule is evaluated against.
struct TargetingScope {
    /// The caller's context, laid over ``base`` without merging (merging costs a dictionary per evaluation).
    let overlay: FlagEvaluationContext?
    let base: FlagEvaluationContext
    let flagKey: String
    let timestamp: Int
    /// The element being visited inside `map`, `filter`, `reduce`, `all`, `none` and `some`;
    /// nil at the top, where the data is the evaluation context.
    var element: FlagValue?

    /// The evaluation context as one object, as flagd presents it to rules.
    var targetingKey: String? { overlay?.targetingKey ?? base.targetingKey }

    /// The reason `name` could not be built completely, when the context that supplies it says so.
    func incompleteness(of name: String) -> String? {
        if let overlay {
            if let reason = overlay.incompleteAttributes[name] { return reason }
            if overlay.attributes[name] != nil { return nil }
        }
        return base.incompleteAttributes[name]
    }

    var rootData: FlagValue {
        var members = base.attributes
        if let overlay { members.merge(overlay.attributes) { _, mine in mine } }
        if let key = targetingKey { members["targetingKey"] = .string(key) }
        members["$flagd"] = .structure(["flagKey": .string(flagKey), "timestamp": .number(Double(timestamp))])
        return FlagValue.structure(members).jsonValue
    }

    /// The value at `path`, or nil when there is none; fails when it reads an incomplete attribute.
    func lookup(_ path: [String]) throws(TargetingFailure) -> FlagValue? {
        if let element { return Self.walk(element, path[...]) }
        guard let first = path.first else {
            let names = Set((overlay?.incompleteAttributes.keys).map(Array.init) ?? []).union(
                base.incompleteAttributes.keys)
            if let name = names.sorted().first, let reason = incompleteness(of: name) {
                throw TargetingFailure(incomplete: name, reason)
            }
            return rootData
        }
        if let reason = incompleteness(of: first) { throw TargetingFailure(incomplete: first, reason) }
        let rest = path.dropFirst()
        switch first {
        case "targetingKey":
            guard let key = targetingKey else { return nil }
            return rest.isEmpty ? .string(key) : nil
        case "$flagd":
            let properties: FlagValue = .structure([
                "flagKey": .string(flagKey), "timestamp": .number(Double(timestamp)),
            ])
            return Self.walk(properties, rest)
        default:
            guard let value = overlay?.attributes[first] ?? base.attributes[first] else { return nil }
            // Rules see a context as flagd receives one, in JSON: a date is its RFC 3339 string.
            return Self.walk(value, rest)?.jsonValue
        }
    }

    private static func walk(_ value: FlagValue, _ path: ArraySlice<String>) -> FlagValue? {
        var current = value
        for component in path {
            switch current {
            case .structure(let members):
                guard let next = members[component] else { return nil }
                current = next
            case .list(let elements):
                guard let index = Int(component), elements.indices.contains(index) else { return nil }
                current = elements[index]
            default:
                return nil
            }
        }
        return current
    }
}

extension TargetingExpression {
    func evaluate(_ scope: TargetingScope) throws(TargetingFailure) -> FlagValue {
        switch self {
        case .literal(let value):
            return value
        case .array(let elements):
            var values: [FlagValue] = []
            values.reserveCapacity(elements.count)
            for element in elements { values.append(try element.evaluate(scope)) }
            return .list(values)
        case .variable(let path, let fallback):
            if let value = try scope.lookup(path), value != .null { return value }
            return try fallback?.evaluate(scope) ?? .null
        case .computedVariable(let pathExpression, let fallback):
            let path = try pathExpression.evaluate(scope)
            let components: [String]
            switch path {
            case .null: components = []
            case .string(let text):
                components =
                    text.isEmpty ? [] : text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            default: components = JSONLogicSemantics.string(path).split(separator: ".").map(String.init)
            }
            if let value = try scope.lookup(components), value != .null { return value }
            return try fallback?.evaluate(scope) ?? .null
        case .semanticVersion(let versionExpression, let comparison, let target):
            // An operator that cannot use its arguments is null, and the rule goes on (flagd's operators).
            guard let version = SemanticVersion(value: try versionExpression.evaluate(scope)) else { return .null }
            return .bool(comparison.holds(version, target))
        case .fractional(let seed, let buckets, let bucketing):
            return try Fractional.evaluate(seed: seed, buckets: buckets, bucketing: bucketing, scope)
        case .operation(let op, let arguments):
            if op.isLazy { return try Self.evaluateLazy(op, arguments, scope) }
            if arguments.count <= 2, op.hasFixedArguments {
                // Most operators take one or two arguments: skip the array.
                let first = arguments.isEmpty ? FlagValue.null : try arguments[0].evaluate(scope)
                let second = arguments.count < 2 ? FlagValue.null : try arguments[1].evaluate(scope)
                return try Self.apply(op, first, second, count: arguments.count)
            }
            var values: [FlagValue] = []
            values.reserveCapacity(arguments.count)
            for argument in arguments { values.append(try argument.evaluate(scope)) }
            return try Self.apply(op, values, scope)
        }
    }

    private static func evaluateLazy(
        _ op: TargetingOperator, _ arguments: [TargetingExpression], _ scope: TargetingScope
    ) throws(TargetingFailure) -> FlagValue {
        switch op {
        case .ifThenElse, .ternary:
            var index = 0
            while index + 1 < arguments.count {
                if JSONLogicSemantics.isTruthy(try arguments[index].evaluate(scope)) {
                    return try arguments[index + 1].evaluate(scope)
                }
                index += 2
            }
            return index < arguments.count ? try arguments[index].evaluate(scope) : .null
        case .or:
            var last: FlagValue = .null
            for argument in arguments {
                last = try argument.evaluate(scope)
                if JSONLogicSemantics.isTruthy(last) { return last }
            }
            return last
        case .and:
            var last: FlagValue = .null
            for argument in arguments {
                last = try argument.evaluate(scope)
                if !JSONLogicSemantics.isTruthy(last) { return last }
            }
            return last
        case .map, .filter, .all, .none, .some:
            guard case .list(let elements) = try arguments[0].evaluate(scope) else {
                return op == .map || op == .filter ? .list([]) : .bool(op == .none)
            }
            var inner = scope
            var results: [FlagValue] = []
            for element in elements {
                inner.element = element
                let result = try arguments[1].evaluate(inner)
                switch op {
                case .map: results.append(result)
                case .filter: if JSONLogicSemantics.isTruthy(result) { results.append(element) }
                case .all: if !JSONLogicSemantics.isTruthy(result) { return false }
                case .none: if JSONLogicSemantics.isTruthy(result) { return false }
                case .some: if JSONLogicSemantics.isTruthy(result) { return true }
                default: break
                }
            }
            switch op {
            case .all: return .bool(!elements.isEmpty)
            case .none: return true
            case .some: return false
            default: return .list(results)
            }
        case .reduce:
            var accumulator = arguments.count > 2 ? try arguments[2].evaluate(scope) : .null
            guard case .list(let elements) = try arguments[0].evaluate(scope) else { return accumulator }
            var inner = scope
            for element in elements {
                inner.element = .structure(["current": element, "accumulator": accumulator])
                accumulator = try arguments[1].evaluate(inner)
            }
            return accumulator
        case .variable, .missing, .missingSome, .equal, .strictEqual, .notEqual, .strictNotEqual, .not, .truthy,
            .greater, .greaterOrEqual, .less, .lessOrEqual, .max, .min, .add, .subtract, .multiply, .divide,
            .remainder, .merge, .in, .cat, .substr, .log, .fractional, .semanticVersion, .startsWith, .endsWith:
            throw TargetingFailure()  // not lazy: its facts send it elsewhere; an error, never a quiet null
        }
    }

    /// Operators of one or two arguments, evaluated without an argument array.
    private static func apply(
        _ op: TargetingOperator, _ a: FlagValue, _ b: FlagValue, count: Int
    ) throws(TargetingFailure) -> FlagValue {
        typealias JS = JSONLogicSemantics
        switch op {
        case .equal: return .bool(JS.looseEquals(a, b))
        case .notEqual: return .bool(!JS.looseEquals(a, b))
        case .strictEqual: return .bool(JS.strictEquals(a, b))
        case .strictNotEqual: return .bool(!JS.strictEquals(a, b))
        case .not: return .bool(!JS.isTruthy(a))
        case .truthy: return .bool(JS.isTruthy(a))
        case .greater: return .bool(JS.less(b, a, orEqual: false))
        case .greaterOrEqual: return .bool(JS.less(b, a, orEqual: true))
        case .less: return .bool(JS.less(a, b, orEqual: false))
        case .lessOrEqual: return .bool(JS.less(a, b, orEqual: true))
        case .subtract:
            if count == 1 { return .number(-JS.number(a)) }
            return .number(JS.number(a) - JS.number(b))
        case .divide: return .number(JS.number(a) / JS.number(b))
        case .remainder: return .number(JS.number(a).truncatingRemainder(dividingBy: JS.number(b)))
        case .in:
            switch b {
            case .string(let text): return .bool(JS.contains(text, JS.string(a)))
            case .list(let elements): return .bool(elements.contains { JS.strictEquals($0, a) })
            default: return false
            }
        case .substr:
            return .string(Self.substring(JS.string(a), start: JS.number(b), length: nil))
        case .log:
            return a
        case .fractional, .semanticVersion:
            return .null  // reached only with arguments flagd cannot use: null, as flagd's operator returns
        case .startsWith, .endsWith:
            guard count == 2, case .string(let text) = a, case .string(let affix) = b else { return .null }
            return .bool(op == .startsWith ? JS.hasPrefix(text, affix) : JS.hasSuffix(text, affix))
        case .variable, .missing, .missingSome, .ifThenElse, .ternary, .or, .and, .max, .min, .add, .multiply,
            .map, .filter, .reduce, .all, .none, .some, .merge, .cat:
            throw TargetingFailure()  // takes other arguments: its facts send it elsewhere; never a quiet null
        }
    }

    private static func apply(
        _ op: TargetingOperator, _ values: [FlagValue], _ scope: TargetingScope
    ) throws(TargetingFailure) -> FlagValue {
        typealias JS = JSONLogicSemantics
        func argument(_ index: Int) -> FlagValue { index < values.count ? values[index] : .null }
        switch op {
        case .missing:
            let keys: [FlagValue] = if case .list(let list) = argument(0) { list } else { values }
            var missing: [FlagValue] = []
            for key in keys where try Self.isMissing(key, scope) { missing.append(key) }
            return .list(missing)
        case .missingSome:
            guard case .list(let keys) = argument(1) else { return .list([]) }
            var missing: [FlagValue] = []
            for key in keys where try Self.isMissing(key, scope) { missing.append(key) }
            let needed = JS.number(argument(0))
            return Double(keys.count - missing.count) >= needed ? .list([]) : .list(missing)
        case .less, .lessOrEqual:
            let orEqual = op == .lessOrEqual
            return .bool(
                JS.less(argument(0), argument(1), orEqual: orEqual)
                    && JS.less(argument(1), argument(2), orEqual: orEqual))
        case .max, .min:
            guard !values.isEmpty else { return .null }
            let numbers = values.map(JS.number)
            if numbers.contains(where: \.isNaN) { return .null }
            return .number(op == .max ? numbers.max()! : numbers.min()!)
        case .add:
            return .number(values.reduce(0) { $0 + JS.parseFloat($1) })
        case .multiply:
            return .number(
                values.isEmpty ? .nan : values.dropFirst().reduce(JS.parseFloat(values[0])) { $0 * JS.parseFloat($1) })
        case .merge:
            var merged: [FlagValue] = []
            for value in values {
                if case .list(let elements) = value {
                    merged.append(contentsOf: elements)
                } else {
                    merged.append(value)
                }
            }
            return .list(merged)
        case .cat:
            return .string(values.map(JS.string).joined())
        case .substr:
            return .string(
                Self.substring(
                    JS.string(argument(0)), start: JS.number(argument(1)),
                    length: values.count > 2 ? JS.number(argument(2)) : nil))
        case .semanticVersion:
            guard values.count == 3, case .string(let symbol) = values[1],
                let comparison = SemanticVersionOperator(rawValue: symbol),
                let left = SemanticVersion(value: values[0]), let right = SemanticVersion(value: values[2])
            else { return .null }
            return .bool(comparison.holds(left, right))
        case .equal, .strictEqual, .notEqual, .strictNotEqual, .not, .truthy, .greater, .greaterOrEqual, .subtract,
            .divide, .remainder, .in, .log, .fractional, .startsWith, .endsWith:
            return try apply(op, argument(0), argument(1), count: values.count)
        case .variable, .ifThenElse, .ternary, .or, .and, .map, .filter, .reduce, .all, .none, .some:
            throw TargetingFailure()  // evaluated before it gets here (a lookup, or lazily); never a quiet null
        }
    }

    private static func isMissing(_ key: FlagValue, _ scope: TargetingScope) throws(TargetingFailure) -> Bool {
        let path = JSONLogicSemantics.string(key).split(separator: ".", omittingEmptySubsequences: false).map(
            String.init)
        guard let value = try scope.lookup(path) else { return true }
        return value == .null || value == .string("")
    }

    /// JavaScript's `substr`, counting UTF-16 code units, with negative start and length
    /// counted from the end. (Half of a surrogate pair cannot live in a Swift string: it becomes U+FFFD.)
    private static func substring(_ text: String, start: Double, length: Double?) -> String {
        let units = Array(text.utf16)
        let count = units.count
        // Clamped before converting: an index such as 1e300 or -Infinity must not trap.
        func index(_ value: Double) -> Int {
            value.isNaN
                ? 0 : Int(Swift.min(Swift.max(value, -Double(count) - 1), Double(count) + 1).rounded(.towardZero))
        }
        var from = index(start)
        if from < 0 { from = Swift.max(0, count + from) }
        from = Swift.min(from, count)
        var to = count
        if let length, !length.isNaN {
            let taken = index(length)
            to = taken < 0 ? Swift.max(from, count + taken) : Swift.min(count, from + taken)
        }
        return String(decoding: units[from..<to], as: UTF16.self)
    }
}
