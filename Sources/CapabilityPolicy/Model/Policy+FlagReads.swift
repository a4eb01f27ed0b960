extension Policy {
    /// Whether deciding `names` (gates or capabilities) may read a flag: a `flag:` reference, or a
    /// capability whose kind reads flags (``CapabilityKind/readsFlags``), directly or through the
    /// gates they use. An unknown name may: only what is known not to read flags waits for no flag
    /// service (``PolicyOptions/startsFlagServices``).
    ///
    /// An array, not any sequence: called from another module, generic code finds the sequence's
    /// conformances at run time, which costs a process's start a scan of every conformance record.
    public func readsFlags(deciding names: [String]) -> Bool {
        names.contains { name in
            if gates[name] != nil {
                let read = reads(gate: name)
                return !read.flags.isEmpty || read.capabilities.contains(where: capabilityReadsFlags)
            }
            if capabilities[name] != nil { return capabilityReadsFlags(name) }
            return true
        }
    }

    /// The capabilities and flag keys gate `name` reads, directly or through the gates it uses:
    /// what a test case must assume, what a replay needs recorded, what a diff compares.
    func reads(gate name: String) -> (capabilities: Set<String>, flags: Set<String>) {
        var capabilities: Set<String> = []
        var flags: Set<String> = []
        var visited: Set<String> = [name]
        func walk(_ expression: GateExpression) {
            switch expression {
            case .capability(let name, _): capabilities.insert(name)
            case .flag(let key, _): flags.insert(key)
            case .gate(let name, _):
                guard visited.insert(name).inserted, let declaration = gates[name] else { return }
                walk(declaration.expression)
            case .allOf(let parts), .anyOf(let parts): parts.forEach(walk)
            case .not(let part), .silent(let part): walk(part)
            }
        }
        if let declaration = gates[name] { walk(declaration.expression) }
        return (capabilities, flags)
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
