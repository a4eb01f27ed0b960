import ConfigurationFiles
import FeatureFlags

/// Checks a layered policy as a whole: every name a gate uses is defined, no gate depends on
/// itself, and every flag a gate or capability names exists in the policy's flag sources. What a
/// flag service serves is known only when it is asked, which loading never does: with one, a flag
/// no file defines is left to evaluation (where a flag nobody serves is an error, its gate undecided).
enum PolicyValidator {
    static func check(_ policy: Policy) -> [ConfigurationError] {
        var errors: [ConfigurationError] = []
        var definitions: [String: FlagDefinition]?
        var knownFlags: Set<String> { Set(definitions.map { Array($0.keys) } ?? []) }
        let hasFlagService = policy.flagSources.contains { $0.url != nil }
        /// The flags the policy's files and inline sets define (a service's are known only when asked).
        func definedFlags() -> [String: FlagDefinition] {
            if let definitions { return definitions }
            let store = FlagStore(
                sources: policy.flagSources.filter { $0.url == nil }, watchesFiles: false,
                context: FlagEvaluationContext())
            definitions = store.flags
            // A flag file that cannot be read is an error here; problems of single flags are
            // not (those flags evaluate as in flagd), and `capctl validate` reports them.
            for problem in store.loadFailures { errors.append(problem) }
            return store.flags
        }
        func flagExists(_ key: String) -> Bool {
            let defined = definedFlags()
            return hasFlagService || defined[key] != nil
        }
        for gate in policy.gates.values.sorted(by: { $0.location.line < $1.location.line }) {
            for reference in gate.expression.references {
                switch reference.kind {
                case "capability"
                where policy.capabilities[reference.name] == nil
                    && !policy.rejectedCapabilities.contains(reference.name):
                    errors.append(
                        ConfigurationError(
                            "gate \"\(gate.name)\" uses capability \"\(reference.name)\", which no policy file defines\(suggestion(reference.name, among: Array(policy.capabilities.keys) + policy.rejectedCapabilities))",
                            at: reference.location))
                case "gate" where policy.gates[reference.name] == nil && !policy.rejectedGates.contains(reference.name):
                    errors.append(
                        ConfigurationError(
                            "gate \"\(gate.name)\" uses gate \"\(reference.name)\", which no policy file defines\(suggestion(reference.name, among: Array(policy.gates.keys) + policy.rejectedGates))",
                            at: reference.location))
                case "flag" where !flagExists(reference.name):
                    errors.append(
                        ConfigurationError(
                            "gate \"\(gate.name)\" uses flag \"\(reference.name)\", which no flag source defines\(suggestion(reference.name, among: knownFlags))",
                            at: reference.location))
                case "flag":
                    // `flag: KEY` in a gate holds while the flag is true: a flag with no Boolean variant never is.
                    if let definition = definedFlags()[reference.name],
                        let problem = mismatch(definition, expected: .bool(true), flag: reference.name)
                    {
                        errors.append(
                            ConfigurationError("gate \"\(gate.name)\" \(problem)", at: reference.location))
                    }
                default:
                    break
                }
            }
        }
        for declaration in policy.capabilities.values {
            guard declaration.kind == "flag", let key = declaration.settings.string("flag") else { continue }
            if !flagExists(key) {
                errors.append(
                    ConfigurationError(
                        "capability \"\(declaration.name)\" uses flag \"\(key)\", which no flag source defines\(suggestion(key, among: knownFlags))",
                        at: declaration.location))
            } else if let definition = definedFlags()[key],
                let problem = mismatch(definition, expected: declaration.settings.value("equals") ?? true, flag: key)
            {
                errors.append(
                    ConfigurationError(
                        "capability \"\(declaration.name)\" \(problem)",
                        at: declaration.settingLocations["equals"] ?? declaration.location))
            }
        }
        errors += finalSystemReferences(policy)
        errors += cycles(policy)
        return errors.sorted {
            ($0.file, $0.location?.line ?? 0, $0.location?.column ?? 0) < (
                $1.file, $1.location?.line ?? 0, $1.location?.column ?? 0
            )
        }
    }

    /// Under a final system policy, what the system's gates and capabilities name resolves in the
    /// system layers only: a name or a flag only the per-user layer supplies would let a user fill
    /// in (and open) a gate the administrator made final.
    static func finalSystemReferences(_ policy: Policy) -> [ConfigurationError] {
        guard policy.finalLocation != nil, let sources = policy.systemFlagSources else {
            return finalNameReferences(policy)
        }
        var errors = finalNameReferences(policy)
        let hasService = sources.contains { $0.url != nil }
        let store = FlagStore(
            sources: sources.filter { $0.url == nil }, watchesFiles: false, context: FlagEvaluationContext())
        let systemFlags = store.flags
        func check(_ key: String, _ what: String, at location: FileLocation) {
            guard !hasService, systemFlags[key] == nil else { return }
            errors.append(
                ConfigurationError(
                    "\(what) of the final system policy uses flag \"\(key)\", which no system flag source defines "
                        + "(the per-user layer cannot supply it)", at: location))
        }
        for gate in policy.gates.values where !gate.fromUserLayer {
            for reference in gate.expression.references where reference.kind == "flag" {
                check(reference.name, "gate \"\(gate.name)\"", at: reference.location)
            }
        }
        for declaration in policy.capabilities.values where !declaration.fromUserLayer && declaration.kind == "flag" {
            if let key = declaration.settings.string("flag") {
                check(key, "capability \"\(declaration.name)\"", at: declaration.location)
            }
        }
        return errors
    }

    private static func finalNameReferences(_ policy: Policy) -> [ConfigurationError] {
        guard policy.finalLocation != nil else { return [] }
        var errors: [ConfigurationError] = []
        for gate in policy.gates.values where !gate.fromUserLayer {
            for reference in gate.expression.references {
                let userOnly =
                    switch reference.kind {
                    case "capability": policy.capabilities[reference.name]?.fromUserLayer == true
                    case "gate": policy.gates[reference.name]?.fromUserLayer == true
                    default: false
                    }
                if userOnly {
                    errors.append(
                        ConfigurationError(
                            "gate \"\(gate.name)\" of the final system policy uses \(reference.kind) \"\(reference.name)\", "
                                + "which only the per-user layer defines: a final system policy's names resolve in the system layers",
                            at: reference.location))
                }
            }
        }
        return errors
    }

    /// Why comparing flag `flag` with `expected` could never hold: no variant of the flag has the
    /// value's type (`equals: yes` against a Boolean flag, which YAML 1.2 reads as the string
    /// "yes"). Under `not`, such a comparison would open the gate for every value of the flag.
    static func mismatch(_ definition: FlagDefinition, expected: FlagValue, flag: String) -> String? {
        let types = Set(definition.variants.values.map(\.typeName))
        guard !types.isEmpty, !types.contains(expected.typeName) else { return nil }
        let variants = definition.variants.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
        var message =
            "compares flag \"\(flag)\" with \(expected.describedType) (\(expected)), but its variants are "
            + "\(types.sorted().joined(separator: " and ")) (\(variants.joined(separator: ", "))): it would never match"
        if case .string(let text) = expected, types.contains("boolean") {
            let words = [
                "yes": true, "no": false, "on": true, "off": false, "y": true, "n": false, "true": true, "false": false,
            ]
            if let meant = words[text.lowercased()] {
                message +=
                    text.lowercased() == "true" || text.lowercased() == "false"
                    ? "; write equals: \(meant) without quotes (quoted, it is a string)"
                    : "; write equals: \(meant) (YAML 1.2 reads \(text) as a string, not a Boolean)"
            }
        }
        return message
    }

    /// The most conditions one gate may expand to, counting every use of another gate in full:
    /// evaluation visits each, so a few gates that each use the next twice must not explode.
    static let maximumExpandedSize = 10_000
    /// The deepest nesting one gate may reach through the gates it uses.
    static let maximumExpandedDepth = 64

    /// Each cycle between gates, once, and each gate that expands beyond the limits; in time
    /// linear in the number of gates and references (an iterative depth-first search, each
    /// gate's expansion measured once).
    static func cycles(_ policy: Policy) -> [ConfigurationError] {
        enum Mark { case visiting, done }
        struct Frame {
            let name: String
            let references: [String]
            var next = 0
        }
        var errors: [ConfigurationError] = []
        var tooLarge: [ConfigurationError] = []
        var marks: [String: Mark] = [:]
        var position: [String: Int] = [:]
        var measures: [String: Measure] = [:]
        var frames: [Frame] = []
        func enter(_ name: String) {
            let references = policy.gates[name]!.expression.references.filter { $0.kind == "gate" }.map(\.name)
            marks[name] = .visiting
            position[name] = frames.count
            frames.append(Frame(name: name, references: references))
        }
        for root in policy.gates.keys.sorted() where marks[root] == nil {
            enter(root)
            while let top = frames.last {
                if top.next < top.references.count {
                    let reference = top.references[top.next]
                    frames[frames.count - 1].next += 1
                    guard policy.gates[reference] != nil else { continue }  // reported as undefined
                    switch marks[reference] {
                    case nil:
                        enter(reference)
                    case .visiting:
                        let cycle = frames[position[reference]!...].map(\.name) + [reference]
                        // A long cycle is named by its ends, so the message stays readable.
                        let shown =
                            cycle.count <= 12
                            ? cycle.joined(separator: " -> ")
                            : (cycle.prefix(6) + ["... (\(cycle.count - 12) more)"] + cycle.suffix(6)).joined(
                                separator: " -> ")
                        errors.append(
                            ConfigurationError(
                                "gates depend on each other in a cycle: " + shown, at: policy.gates[top.name]!.location)
                        )
                    case .done:
                        break
                    }
                    continue
                }
                frames.removeLast()
                marks[top.name] = .done
                let gate = policy.gates[top.name]!
                let measure = Measure(of: gate.expression, gates: measures)
                measures[top.name] = measure
                let usedTooLarge = top.references.contains { measures[$0]?.isTooLarge == true }
                if measure.isTooLarge, !usedTooLarge {
                    tooLarge.append(ConfigurationError(measure.problem(gate: top.name), at: gate.location))
                }
            }
        }
        // A cycle makes every gate on it look deep; the cycle is the problem to report.
        return errors.isEmpty ? tooLarge : errors
    }

    /// How large and how deep a gate's expression is once the gates it uses are expanded.
    struct Measure {
        var size: Int
        var depth: Int

        var isTooLarge: Bool {
            size > PolicyValidator.maximumExpandedSize || depth > PolicyValidator.maximumExpandedDepth
        }

        func problem(gate: String) -> String {
            if depth > PolicyValidator.maximumExpandedDepth {
                return
                    "gate \"\(gate)\" nests more than \(PolicyValidator.maximumExpandedDepth) levels deep through the gates it uses"
            }
            return
                "gate \"\(gate)\" expands to more than \(PolicyValidator.maximumExpandedSize) conditions through the gates it uses"
        }

        /// Measures `expression`, with the measures of the gates it uses (a gate on a cycle, not
        /// measured yet, counts as one: the cycle is an error of its own).
        init(of expression: GateExpression, gates: [String: Measure]) {
            let cap = PolicyValidator.maximumExpandedSize + 1
            switch expression {
            case .capability, .flag:
                self.init(size: 1, depth: 1)
            case .gate(let name, _):
                let used = gates[name] ?? Measure(size: 1, depth: 1)
                self.init(size: min(cap, used.size + 1), depth: used.depth + 1)
            case .allOf(let parts), .anyOf(let parts):
                var size = 1
                var depth = 0
                for part in parts {
                    let measure = Measure(of: part, gates: gates)
                    size = min(cap, size + measure.size)
                    depth = max(depth, measure.depth)
                }
                self.init(size: size, depth: depth + 1)
            case .not(let part), .silent(let part):
                let measure = Measure(of: part, gates: gates)
                self.init(size: min(cap, measure.size + 1), depth: measure.depth + 1)
            }
        }

        init(size: Int, depth: Int) {
            self.size = size
            self.depth = depth
        }
    }

    private static func suggestion(_ name: String, among names: some Sequence<String>) -> String {
        NameSuggestion.didYouMean(name, among: names)
    }
}
