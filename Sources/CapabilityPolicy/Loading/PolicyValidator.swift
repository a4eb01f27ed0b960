import FeatureFlags

/// Checks a layered policy as a whole: every name a gate uses is defined, no gate depends on
/// itself, and every flag a gate or capability names exists in the policy's flag sources.
enum PolicyValidator {
    static func check(_ policy: Policy) -> [PolicyError] {
        var errors: [PolicyError] = []
        var knownFlags: Set<String>?
        func flagExists(_ key: String) -> Bool {
            if knownFlags == nil {
                let store = FlagStore(flagSets: policy.inlineFlags, files: policy.flagFiles, watch: false, context: FlagEvaluationContext())
                knownFlags = Set(store.flags.keys)
                for problem in store.problems { errors.append(PolicyError(problem)) }
            }
            return knownFlags!.contains(key)
        }
        for gate in policy.gates.values.sorted(by: { $0.location.line < $1.location.line }) {
            for reference in gate.expression.references {
                switch reference.kind {
                case "capability" where policy.capabilities[reference.name] == nil:
                    errors.append(PolicyError("gate \"\(gate.name)\" uses capability \"\(reference.name)\", which no policy file defines\(suggestion(reference.name, among: Array(policy.capabilities.keys)))", at: reference.location))
                case "gate" where policy.gates[reference.name] == nil:
                    errors.append(PolicyError("gate \"\(gate.name)\" uses gate \"\(reference.name)\", which no policy file defines\(suggestion(reference.name, among: Array(policy.gates.keys)))", at: reference.location))
                case "flag" where !flagExists(reference.name):
                    errors.append(PolicyError("gate \"\(gate.name)\" uses flag \"\(reference.name)\", which no flag source defines", at: reference.location))
                default:
                    break
                }
            }
        }
        for declaration in policy.capabilities.values {
            if case .flag(let key, _) = declaration.specification, !flagExists(key) {
                errors.append(PolicyError("capability \"\(declaration.name)\" uses flag \"\(key)\", which no flag source defines", at: declaration.location))
            }
        }
        errors += cycles(policy)
        return errors.sorted { ($0.file, $0.location?.line ?? 0, $0.location?.column ?? 0) < ($1.file, $1.location?.line ?? 0, $1.location?.column ?? 0) }
    }

    /// Each cycle between gates, once.
    private static func cycles(_ policy: Policy) -> [PolicyError] {
        var errors: [PolicyError] = []
        var finished: Set<String> = []
        func visit(_ name: String, path: [String]) {
            guard !finished.contains(name), let gate = policy.gates[name] else { return }
            if let start = path.firstIndex(of: name) {
                let cycle = path[start...] + [name]
                errors.append(PolicyError("gates depend on each other in a cycle: " + cycle.joined(separator: " -> "), at: gate.location))
                return
            }
            for reference in gate.expression.references where reference.kind == "gate" {
                visit(reference.name, path: path + [name])
            }
            finished.insert(name)
        }
        for name in policy.gates.keys.sorted() { visit(name, path: []) }
        return errors
    }

    private static func suggestion(_ name: String, among names: [String]) -> String {
        let close = names.filter { $0.lowercased() == name.lowercased() || $0.hasPrefix(name) || name.hasPrefix($0) }.sorted()
        return close.first.map { " (did you mean \"\($0)\"?)" } ?? ""
    }
}
