public import Capabilities
public import FeatureFlags
import Glibc
import LinuxBackends

extension FlagEvaluationContext {
    /// This process: `user` (effective user name), `uid`, `gid`, `groups` (names of every
    /// group, or numbers where a group has no name) and `hostname`; the targeting key is
    /// the host name. A name the user or group database could not give (a directory out of
    /// reach) makes that attribute incomplete (`incompleteAttributes`),
    /// so rules reading it are errors rather than seeing a shorter list.
    public static let host: FlagEvaluationContext = current()

    /// The context as the databases answer now.
    static func current(identity: ProcessIdentity = .current()) -> FlagEvaluationContext {
        func name(_ named: ProcessIdentity.Named) -> FlagValue {
            named.name.map(FlagValue.string) ?? .number(Double(named.id))
        }
        var incomplete: [String: String] = [:]
        var groups: [FlagValue] = [name(identity.effectiveGroup)]
        for group in identity.supplementaryGroups where group.id != identity.effectiveGroup.id {
            groups.append(name(group))
        }
        let unnamed = ([identity.effectiveGroup] + identity.supplementaryGroups).compactMap(\.lookupFailure)
        if let failure = unnamed.first { incomplete["groups"] = failure }
        if let failure = identity.effectiveUser.lookupFailure { incomplete["user"] = failure }
        let hostname = Self.hostName()
        return FlagEvaluationContext(
            targetingKey: hostname,
            attributes: [
                "user": name(identity.effectiveUser),
                "uid": .number(Double(identity.effectiveUser.id)),
                "gid": .number(Double(identity.effectiveGroup.id)),
                "groups": .list(groups),
                "hostname": .string(hostname),
            ], incompleteAttributes: incomplete)
    }

    /// The context of a gate decided for `subject`: its `user`, `uid`, `gid` and `groups` (names
    /// looked up here, incomplete when a lookup fails) and this host's `hostname`, which stays
    /// the targeting key.
    public static func subject(_ subject: Subject) -> FlagEvaluationContext {
        func named(_ id: UInt32, _ lookup: AccountDatabase.Lookup<String>) -> (FlagValue, String?) {
            switch lookup {
            case .found(let name): (.string(name), nil)
            case .notFound: (.number(Double(id)), nil)
            case .failed(let reason): (.number(Double(id)), reason)
            }
        }
        var incomplete: [String: String] = [:]
        let user = named(subject.uid, AccountDatabase.user(id: subject.uid))
        if let failure = user.1 { incomplete["user"] = failure }
        var groups: [FlagValue] = []
        for id in subject.groups {
            let group = named(id, AccountDatabase.group(id: id))
            groups.append(group.0)
            if let failure = group.1, incomplete["groups"] == nil { incomplete["groups"] = failure }
        }
        let hostname = Self.hostName()
        return FlagEvaluationContext(
            targetingKey: hostname,
            attributes: [
                "user": user.0, "uid": .number(Double(subject.uid)), "gid": .number(Double(subject.gid)),
                "groups": .list(groups), "hostname": .string(hostname),
            ], incompleteAttributes: incomplete)
    }

    /// The kernel's host name (no DNS lookup).
    private static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
