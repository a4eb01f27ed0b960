/// An executable model of how policy layers combine (Docs/Policy.md, "Where files are read, and
/// how they layer"; Semantics rule 58), written from that text and sharing no code with the
/// loader: a later layer's definition of a name replaces an earlier one; under a system layer
/// that says `final: true`, the per-user layer adds names but replaces none of the system's. What
/// the layers resolve to is then decided by `GateModel`.
enum LayerModel {
    /// One policy file's definitions: capabilities (each a `kind: flag` capability, by the flag it
    /// reads, so that which definition is in force shows in the decision) and gates, by number.
    struct Layer: Sendable {
        var isUser = false
        var final = false
        var capabilities: [Int: Int] = [:]
        var gates: [Int: GateModel.Expression] = [:]

        /// The layer as a policy file.
        var text: String {
            var lines = final ? ["final: true"] : []
            if !capabilities.isEmpty {
                lines.append("capabilities:")
                for (index, flag) in capabilities.sorted(by: { $0.key < $1.key }) {
                    lines.append("  c\(index): { kind: flag, flag: f\(flag) }")
                }
            }
            if !gates.isEmpty {
                lines.append("gates:")
                for (index, gate) in gates.sorted(by: { $0.key < $1.key }) {
                    lines.append("  g\(index): { require: \(gate) }")
                }
            }
            return lines.joined(separator: "\n") + "\n"
        }
    }

    /// The definitions in force: each capability's flag, each gate's requirement.
    struct Resolved {
        var capabilities: [Int: Int] = [:]
        var gates: [Int: GateModel.Expression] = [:]
    }

    /// The layers read in order, system layers first.
    static func resolve(_ layers: [Layer]) -> Resolved {
        var resolved = Resolved()
        var systemNames = (capabilities: Set<Int>(), gates: Set<Int>())
        let final = layers.contains { !$0.isUser && $0.final }
        for layer in layers {
            for (index, flag) in layer.capabilities {
                // Under a final system policy, a user's definition of a system name is refused.
                if layer.isUser, final, systemNames.capabilities.contains(index) { continue }
                resolved.capabilities[index] = flag
                if !layer.isUser { systemNames.capabilities.insert(index) }
            }
            for (index, gate) in layer.gates {
                if layer.isUser, final, systemNames.gates.contains(index) { continue }
                resolved.gates[index] = gate
                if !layer.isUser { systemNames.gates.insert(index) }
            }
        }
        return resolved
    }

    /// Gate `index` of `resolved` decided under `assignment`: a capability is its flag's
    /// capability (on authorized, off denied, not a Boolean unavailable: as a flag reads).
    static func decide(gate index: Int, _ resolved: Resolved, _ assignment: GateModel.Assignment) -> GateModel.Word {
        func substituted(_ expression: GateModel.Expression) -> GateModel.Expression {
            switch expression {
            case .capability(let capability): .flag(resolved.capabilities[capability]!)
            case .flag, .gate: expression
            case .allOf(let parts): .allOf(parts.map(substituted))
            case .anyOf(let parts): .anyOf(parts.map(substituted))
            case .not(let part): .not(substituted(part))
            case .silent(let part): .silent(substituted(part))
            }
        }
        let count = (resolved.gates.keys.max() ?? 0) + 1
        let gates = (0..<count).map { resolved.gates[$0].map(substituted) ?? .allOf([]) }
        return GateModel.decide(gates[index], assignment, gates: gates)
    }
}
