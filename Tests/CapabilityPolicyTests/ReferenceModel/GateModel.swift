/// An executable model of Docs/Semantics.md's composition of a gate, written from the text of
/// rules 15-18 and the policy table of Docs/Policy.md, and sharing no code with the evaluator
/// (ProcedureCore's conditions, CapabilityPolicy's gates): the differential test decides random
/// gates with both and expects the same word every time.
enum GateModel {
    /// A requirement as the model knows it: capabilities, flags and gates by number.
    indirect enum Expression: Sendable, CustomStringConvertible {
        case capability(Int)
        case flag(Int)
        case gate(Int)
        case allOf([Expression])
        case anyOf([Expression])
        case not(Expression)
        case silent(Expression)

        /// The requirement in a policy file's words.
        var description: String {
            switch self {
            case .capability(let index): "c\(index)"
            case .flag(let index): "{ flag: f\(index) }"
            case .gate(let index): "{ gate: g\(index) }"
            case .allOf(let parts): "{ all-of: [" + parts.map(\.description).joined(separator: ", ") + "] }"
            case .anyOf(let parts): "{ any-of: [" + parts.map(\.description).joined(separator: ", ") + "] }"
            case .not(let part): "{ not: \(part) }"
            case .silent(let part): "{ silent: \(part) }"
            }
        }
    }

    /// A capability's status, as `--assume` names it.
    enum Status: String, Sendable, CaseIterable {
        case authorized, denied, unavailable, notDetermined
    }

    /// A flag's value: on, off, or not a Boolean (a string).
    enum FlagValue: String, Sendable, CaseIterable {
        case on, off, text
    }

    /// The gate's word (Semantics rule 49).
    enum Word: String {
        case holds, fails, undecided, needsInteraction
    }

    /// Statuses and values for every capability and flag.
    struct Assignment: Sendable {
        var statuses: [Status]
        var flags: [FlagValue]
    }

    /// Decides `expression` under `assignment`, nobody asked; `gates` are the gates it may use.
    static func decide(_ expression: Expression, _ assignment: Assignment, gates: [Expression]) -> Word {
        decide(expression, assignment, gates: gates, silenced: false)
    }

    private static func decide(
        _ expression: Expression, _ assignment: Assignment, gates: [Expression], silenced: Bool
    ) -> Word {
        switch expression {
        case .capability(let index):
            // Rule 15: denied fails, unavailable is undecided. A status that asking could
            // change asks, except where nobody may ask (rule 16): then it simply does not hold.
            switch assignment.statuses[index] {
            case .authorized: return .holds
            case .denied: return .fails
            case .unavailable: return .undecided
            case .notDetermined: return silenced ? .fails : .needsInteraction
            }
        case .flag(let index):
            // A flag that is off fails; one that cannot be read as a Boolean is undecided.
            switch assignment.flags[index] {
            case .on: return .holds
            case .off: return .fails
            case .text: return .undecided
            }
        case .gate(let index):
            return decide(gates[index], assignment, gates: gates, silenced: silenced)
        case .silent(let part):
            return decide(part, assignment, gates: gates, silenced: true)
        case .not(let part):
            // Rule 15: satisfied exactly when the part failed; undecided (and asking) stay.
            switch decide(part, assignment, gates: gates, silenced: silenced) {
            case .holds: return .fails
            case .fails: return .holds
            case let other: return other
            }
        case .allOf(let parts):
            // Any failure fails; else anything undecided is undecided; asking comes only when
            // everything else holds; an empty all-of holds (rule 18).
            let words = parts.map { decide($0, assignment, gates: gates, silenced: silenced) }
            if words.contains(.fails) { return .fails }
            if words.contains(.undecided) { return .undecided }
            if words.contains(.needsInteraction) { return .needsInteraction }
            return .holds
        case .anyOf(let parts):
            // Passes only on a part that holds; a part that could hold by asking still may;
            // undecided never becomes a pass, and an empty any-of fails (rule 18).
            let words = parts.map { decide($0, assignment, gates: gates, silenced: silenced) }
            if words.contains(.holds) { return .holds }
            if words.contains(.needsInteraction) { return .needsInteraction }
            if words.contains(.undecided) { return .undecided }
            return .fails
        }
    }
}
