public import ConfigurationFiles
import FeatureFlags

/// What a gate requires, as written in a policy file.
public indirect enum GateExpression: Sendable, CustomStringConvertible {
    /// The named capability is authorized (`AuthorizedFor`); may ask.
    case capability(String, at: FileLocation)
    /// The flag evaluates to on (`FlagIsOn`).
    case flag(String, at: FileLocation)
    /// Another gate holds.
    case gate(String, at: FileLocation)
    /// Every part holds.
    case allOf([GateExpression])
    /// At least one part holds.
    case anyOf([GateExpression])
    /// The part does not hold (`Negated`).
    case not(GateExpression)
    /// The part holds without asking anyone (`Silent`).
    case silent(GateExpression)

    public var description: String {
        switch self {
        case .capability(let name, _): name
        case .flag(let key, _): "flag(\(key))"
        case .gate(let name, _): "gate(\(name))"
        case .allOf(let parts): "all-of(" + parts.map(\.description).joined(separator: ", ") + ")"
        case .anyOf(let parts): "any-of(" + parts.map(\.description).joined(separator: ", ") + ")"
        case .not(let part): "not(\(part))"
        case .silent(let part): "silent(\(part))"
        }
    }

    /// Every name this expression refers to, with where.
    var references: [(kind: String, name: String, location: FileLocation)] {
        switch self {
        case .capability(let name, let location): [("capability", name, location)]
        case .flag(let key, let location): [("flag", key, location)]
        case .gate(let name, let location): [("gate", name, location)]
        case .allOf(let parts), .anyOf(let parts): parts.flatMap(\.references)
        case .not(let part), .silent(let part): part.references
        }
    }
}

/// A named gate.
public struct GateDeclaration: Sendable {
    /// The gate's name.
    public let name: String
    /// What it requires.
    public let expression: GateExpression
    /// A sentence for people, if the file gives one.
    public let summary: String?
    /// Where it is defined.
    public let location: FileLocation
    /// Whether the per-user layer defined it (which matters under a final system policy, whose
    /// own gates resolve names and flags in the system layers only).
    var fromUserLayer = false
}
