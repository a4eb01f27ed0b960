import FeatureFlags
import TestSupport

/// Random flag configurations and contexts for ``FlagdDifferentialTests``, from a seed (`SplitMix`),
/// so a failure names a case that the next run makes again.
///
/// Weighted toward the shapes evaluators disagree on: operators given values of the wrong type or
/// none (`var` of a missing attribute), a null result under `!`, `!` of a single non-array
/// argument, three-argument `<` and `<=`, `fractional` with no, an empty or a computed bucketing
/// key, results that are no variant, not a string, or null, and a type asked for that is not the
/// flag's.
struct FlagdCaseGenerator {
    private var random: SplitMix

    init(seed: UInt64) { random = SplitMix(seed: seed) }

    private mutating func below(_ bound: Int) -> Int { Int(random.next() % UInt64(bound)) }
    private mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
    private mutating func pick<T>(_ choices: [T]) -> T { choices[below(choices.count)] }

    // MARK: Flags

    private static let families: [(type: String, variants: [String: FlagValue])] = [
        ("boolean", ["on": true, "off": false]),
        ("string", ["red": "red", "blue": "blue", "green": "green"]),
        ("integer", ["one": 1, "two": 2, "ten": 10]),
        ("float", ["low": 0.5, "high": 1.5, "whole": 2]),
        ("object", ["a": ["x": 1], "b": ["y": [1, "two"]]]),
    ]

    mutating func nextCase() -> FlagdDifferentialTests.Case {
        let family = pick(Self.families)
        var variants = family.variants
        // Now and then a variant of another type, which a targeting rule may pick.
        if chance(4) { variants["odd"] = pick([FlagValue.string("odd"), 7, true, ["z": 0]]) }
        let names = variants.keys.sorted()
        var flag: [String: FlagValue] = [
            "state": chance(93) ? "ENABLED" : "DISABLED", "variants": .structure(variants),
        ]
        if !chance(8) { flag["defaultVariant"] = chance(95) ? .string(pick(names)) : .null }
        if chance(85) { flag["targeting"] = rule(names, depth: 0) }
        let configuration = FlagValue.structure(["flags": ["f": .structure(flag)]])
        let requested = chance(88) ? family.type : pick(Self.families.map(\.type))
        let defaults: [String: FlagValue] = [
            "boolean": false, "string": "fallback", "integer": 42, "float": 4.5, "object": ["d": true],
        ]
        return FlagdDifferentialTests.Case(
            flags: configuration, type: requested, defaultValue: defaults[requested]!, context: context())
    }

    /// What a targeting rule returns: a variant, mostly.
    private mutating func result(_ names: [String]) -> FlagValue {
        switch below(20) {
        case 0: .null
        case 1: "no-such-variant"
        case 2: pick([true, false, 1, 0.5])
        case 3: ["var": "color"]
        default: .string(pick(names))
        }
    }

    private mutating func rule(_ names: [String], depth: Int) -> FlagValue {
        switch below(10) {
        case 0: return fractional(names)
        case 1: return result(names)
        case 2 where depth == 0:
            return ["if": [condition(depth: 0), rule(names, depth: 1), rule(names, depth: 1)]]
        default:
            var arguments: [FlagValue] = [condition(depth: 0), result(names)]
            if chance(70) { arguments.append(result(names)) }
            return ["if": .list(arguments)]
        }
    }

    private mutating func fractional(_ names: [String]) -> FlagValue {
        var arguments: [FlagValue] = []
        switch below(5) {
        case 0: arguments.append(["var": "email"])
        case 1: arguments.append(["var": "empty"])
        case 2: arguments.append(["cat": [["var": "$flagd.flagKey"], ["var": "color"]]])
        case 3: arguments.append(["var": "missing"])
        default: break  // the targeting key, with the flag's key, by default
        }
        for _ in 0..<(1 + below(3)) {
            var bucket: [FlagValue] = [.string(pick(names))]
            if !chance(10) { bucket.append(.number(Double(below(4) * 25))) }
            arguments.append(.list(bucket))
        }
        return ["fractional": .list(arguments)]
    }

    // MARK: Conditions

    private mutating func operand() -> FlagValue {
        switch below(12) {
        case 0: return ["var": ["missing", pick([FlagValue.string("dflt"), 3])]]
        case 1: return .string(pick(["red", "", "1.2.3", "30", "a@faas.com"]))
        case 2: return .number(pick([0, 1, 18, 30.5, -2]))
        case 3: return pick([true, false, .null])
        case 4: return ["var": "$flagd.flagKey"]
        case 5: return ["var": "targetingKey"]
        default: return ["var": .string(pick(["color", "age", "version", "email", "flag", "missing", "empty", "n"]))]
        }
    }

    private mutating func condition(depth: Int) -> FlagValue {
        let nested = depth < 2
        switch below(nested ? 14 : 10) {
        case 0, 1:
            let op = pick(["==", "!=", "===", "!==", "<", ">", "<=", ">="])
            var arguments = [operand(), operand()]
            if (op == "<" || op == "<=") && chance(35) { arguments.append(operand()) }
            return .structure([op: .list(arguments)])
        case 2:
            return ["in": [operand(), chance(50) ? .string(pick(["red,blue", "faas.com", ""])) : ["red", 18, true]]]
        case 3: return [pick(["starts_with", "ends_with"]): [operand(), .string(pick(["a", "@faas.com", ""]))]]
        case 4:
            let version: FlagValue = .string(pick(["1.2.3", "2.0.0", "v1.0.0", "1.2", "x"]))
            return ["sem_ver": [operand(), .string(pick(["=", "!=", "<", "<=", ">", ">=", "^", "~", "?"])), version]]
        case 5: return ["var": .string(pick(["flag", "missing", "empty", "color", "n"]))]
        case 6:
            // `!` and `!!` of a single argument, array or not.
            let inner = chance(50) ? operand() : condition(depth: depth + 1)
            return .structure([pick(["!", "!!"]): chance(50) ? inner : [inner]])
        case 7: return ["!": [[pick(["starts_with", "ends_with"]): [operand(), "a"]]]]
        case 8: return ["!": [["sem_ver": [operand(), ">=", "1.0.0"]]]]
        case 9: return pick([true, false, .null, 0, "", "x"])
        default:
            let count = 1 + below(3)
            return .structure([pick(["and", "or"]): .list((0..<count).map { _ in condition(depth: depth + 1) })])
        }
    }

    // MARK: Contexts

    private mutating func context() -> [String: FlagValue] {
        var context: [String: FlagValue] = [:]
        if chance(80) { context["targetingKey"] = .string(pick(["user-1", "user-2", "", "x"])) }
        if chance(80) { context["color"] = pick(["red", "blue", "", 3]) }
        if chance(70) { context["age"] = pick([18, 30.5, "30", -1, .null]) }
        if chance(70) { context["version"] = pick(["1.2.3", "v2.0.0", "1.2", "not-a-version", 1, .null]) }
        if chance(70) { context["email"] = pick(["a@faas.com", "b@example.org", "", .null]) }
        if chance(60) { context["flag"] = pick([true, false, "true", 0]) }
        if chance(30) { context["n"] = .null }
        if chance(50) { context["empty"] = "" }
        return context
    }
}
