public import FeatureFlags
import Glibc

extension FlagEvaluationContext {
    /// This process: `user` (effective user name), `uid`, `gid`, `groups` (names of every
    /// group, or numbers where a group has no name) and `hostname`; the targeting key is
    /// the host name.
    public static let host: FlagEvaluationContext = {
        let identity = ProcessIdentity.current()
        func name(_ named: ProcessIdentity.Named) -> FlagValue {
            named.name.map(FlagValue.string) ?? .number(Double(named.id))
        }
        var groups: [FlagValue] = [name(identity.effectiveGroup)]
        for group in identity.supplementaryGroups where group.id != identity.effectiveGroup.id {
            groups.append(name(group))
        }
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
}
