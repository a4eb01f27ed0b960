extension Policy {
    /// Whether deciding `names` (gates or capabilities) may read a flag: a `flag:` reference, or a
    /// capability whose kind reads flags (``CapabilityKind/readsFlags``), directly or through the
    /// gates they use. An unknown name may: only what is known not to read flags waits for no flag
    /// service (``PolicyOptions/startsFlagServices``).
    ///
    /// An array, not any sequence: called from another module, generic code finds the sequence's
    /// conformances at run time, which costs a process's start a scan of every conformance record.
    public func readsFlags(deciding names: [String]) -> Bool {
        var visited: Set<String> = []
        return names.contains { name in
            if gates[name] != nil { return gateReadsFlags(name, visited: &visited) }
            if capabilities[name] != nil { return capabilityReadsFlags(name) }
            return true
        }
    }

    private func gateReadsFlags(_ name: String, visited: inout Set<String>) -> Bool {
        guard visited.insert(name).inserted else { return false }
        guard let gate = gates[name] else { return true }
        return expressionReadsFlags(gate.expression, visited: &visited)
    }

    private func expressionReadsFlags(_ expression: GateExpression, visited: inout Set<String>) -> Bool {
        switch expression {
        case .flag: return true
        case .capability(let name, _): return capabilityReadsFlags(name)
        case .gate(let name, _): return gateReadsFlags(name, visited: &visited)
        case .allOf(let parts), .anyOf(let parts):
            return parts.contains { expressionReadsFlags($0, visited: &visited) }
        case .not(let part), .silent(let part): return expressionReadsFlags(part, visited: &visited)
        }
    }

    private func capabilityReadsFlags(_ name: String) -> Bool {
        guard let declaration = capabilities[name] else { return true }
        return environment.kind(named: declaration.kind)?.readsFlags ?? true
    }
}

extension Policy {
    /// Every flag key the policy reads: its gates' `flag:` references and its `kind: flag`
    /// capabilities' flags (what `capctl check --assume-flag` may name).
    public var flagKeysRead: Set<String> {
        var keys: Set<String> = []
        for gate in gates.values {
            for reference in gate.expression.references where reference.kind == "flag" { keys.insert(reference.name) }
        }
        for declaration in capabilities.values where declaration.kind == "flag" {
            if let key = declaration.settings.string("flag") { keys.insert(key) }
        }
        return keys
    }
}
