import Glibc
import LinuxCapabilities

/// What flags are evaluated for: a targeting key (the subject of `fractional` rollouts) and
/// attributes that targeting rules read with `var`.
///
/// Evaluations start from ``host``, which describes this process: `user`, `uid`, `gid`,
/// `groups` and `hostname`, with the host name as targeting key so a fleet rolls out host by
/// host. A context the caller passes is laid over it; its values win.
public struct FlagEvaluationContext: Sendable, Hashable {
    /// The subject of the evaluation; flagd exposes it to rules as `targetingKey`.
    public var targetingKey: String?
    /// Attributes, by name.
    public var attributes: [String: FlagValue]

    /// Creates a context.
    public init(targetingKey: String? = nil, attributes: [String: FlagValue] = [:]) {
        self.targetingKey = targetingKey
        self.attributes = attributes
    }

    /// This process: `user` (effective user name), `uid`, `gid`, `groups` (names of every
    /// group, or numbers where a group has no name) and `hostname`; the targeting key is
    /// the host name.
    public static let host: FlagEvaluationContext = {
        let identity = ProcessIdentity.current()
        func name(_ named: ProcessIdentity.Named) -> FlagValue { named.name.map(FlagValue.string) ?? .number(Double(named.id)) }
        var groups: [FlagValue] = [name(identity.effectiveGroup)]
        for group in identity.supplementaryGroups where group.id != identity.effectiveGroup.id { groups.append(name(group)) }
        let hostname = Self.hostName()
        return FlagEvaluationContext(
            targetingKey: hostname,
            attributes: [
                "user": name(identity.effectiveUser),
                "uid": .number(Double(identity.effectiveUser.id)),
                "gid": .number(Double(identity.effectiveGroup.id)),
                "groups": .list(groups),
                "hostname": .string(hostname),
            ])
    }()

    /// The kernel's host name (no DNS lookup).
    private static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// This context laid over `base`: attributes and targeting key given here win.
    public func merged(over base: FlagEvaluationContext) -> FlagEvaluationContext {
        var merged = base
        merged.attributes.merge(attributes) { _, mine in mine }
        if let targetingKey { merged.targetingKey = targetingKey }
        return merged
    }

    /// The first attribute that JSON cannot carry (NaN or an infinity), as a path.
    func firstInvalidAttribute() -> String? {
        func check(_ value: FlagValue, _ path: String) -> String? {
            switch value {
            case .number(let number): return number.isFinite ? nil : path
            case .list(let elements):
                for (index, element) in elements.enumerated() {
                    if let bad = check(element, "\(path)[\(index)]") { return bad }
                }
                return nil
            case .structure(let members):
                for (key, member) in members {
                    if let bad = check(member, "\(path).\(key)") { return bad }
                }
                return nil
            default: return nil
            }
        }
        for (key, value) in attributes {
            if let bad = check(value, key) { return bad }
        }
        return nil
    }
}
