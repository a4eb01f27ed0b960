public import Capabilities
public import FeatureFlags
import ProcedureCore

/// Statuses and flag values given for a what-if decision (`capctl check GATE --assume
/// admin=authorized --assume-flag beta=true`): each capability named answers with its given
/// status and is never asked, each flag named has its given value; everything else is decided as
/// it stands. The explanation says which parts were assumed.
///
/// ```swift
/// let assumed = Assumptions(capabilities: ["admin": .authorized], flags: ["beta": true])
/// let evaluation = try await policy.evaluate(gate: "export", assuming: assumed)
/// ```
public struct Assumptions: Sendable, Equatable {
    /// A status for each capability named, by its name in the policy.
    public var capabilities: [String: CapabilityStatus.Kind]
    /// A value for each flag named, by its key: for `flag:` references and for capabilities of
    /// kind `flag` that read it.
    public var flags: [String: FlagValue]

    /// Assumptions of `capabilities`' statuses and `flags`' values.
    public init(capabilities: [String: CapabilityStatus.Kind] = [:], flags: [String: FlagValue] = [:]) {
        self.capabilities = capabilities
        self.flags = flags
    }

    /// Whether nothing is assumed.
    public var isEmpty: Bool { capabilities.isEmpty && flags.isEmpty }

    /// The capability standing in for `name` (declared as `declared`), or nil when nothing
    /// assumed concerns it.
    func capability(named name: String, declared: any CapabilityType) -> (any CapabilityType)? {
        if let kind = capabilities[name] {
            return AssumedCapability(name: name, status: CapabilityStatus(kind, reason: "assumed \(kind) (--assume)"))
        }
        guard let flag = declared as? FeatureFlag, let value = flags[flag.key] else { return nil }
        let status: CapabilityStatus =
            if value == flag.expected {
                .authorized("flag \(flag.key) assumed \(value) (--assume-flag)")
            } else if value.typeName != flag.expected.typeName {
                // As FeatureFlag words it: another type is a misconfiguration, never "not held".
                .unavailable("flag \(flag.key) assumed \(value), compared with \(flag.expected) (--assume-flag)")
            } else {
                .denied("flag \(flag.key) assumed \(value), needs \(flag.expected) (--assume-flag)")
            }
        return AssumedCapability(name: name, status: status)
    }

    /// The condition standing in for a `flag:` reference to `key`, or nil when it is not assumed.
    func flagCondition(_ key: String) -> (any ProcedureCondition)? {
        flags[key].map { AssumedFlag(key: key, value: $0) }
    }
}

/// A capability whose status is given: it answers with it, and asking changes nothing.
struct AssumedCapability: CapabilityType {
    let name: String
    let status: CapabilityStatus

    func status() async throws -> CapabilityStatus { status }
    func authorize() async throws -> CapabilityStatus { status }
    func authorize(after status: CapabilityStatus) async throws -> CapabilityStatus { self.status }
    func knownStatus() -> CapabilityStatus? { status }
    /// A given status never changes.
    func statusUpdates() -> CapabilityStatusUpdates { CapabilityStatusUpdates { AsyncStream { _ in } } }
}

/// A `flag:` reference whose flag's value is given, judged as `FlagIsOn` judges a value: on when
/// true, off when false, undecided when not a Boolean.
struct AssumedFlag: SynchronousCondition {
    let key: String
    let value: FlagValue

    var name: String { "FlagIsOn(\(key))" }

    func evaluate(for procedure: Procedure, context: ConditionContext) -> ConditionResult {
        switch value {
        case .bool(true): .satisfied("assumed true (--assume-flag)")
        case .bool(false): .failed("assumed false (--assume-flag)")
        default: .undecided("assumed \(value), not a Boolean (--assume-flag)")
        }
    }
}
