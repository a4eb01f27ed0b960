package import Glibc

/// Who the current process runs as: user and group ids, with names where the system knows them.
public struct ProcessIdentity: Sendable, Equatable {
    /// A user or group id with its name, if it has one.
    public struct Named: Sendable, Equatable, CustomStringConvertible {
        /// The numeric id.
        public let id: UInt32
        /// The name from the user or group database, or nil.
        public let name: String?
        /// Why the database could not say whether the id has a name (it is unreachable, say),
        /// or nil when it answered. A nil ``name`` is only "no name" when this is nil too.
        public let lookupFailure: String?

        public var description: String { name.map { "\($0)(\(id))" } ?? String(id) }
    }

    /// The real user.
    public let realUser: Named
    /// The effective user, which the kernel checks permissions against.
    public let effectiveUser: Named
    /// The real group.
    public let realGroup: Named
    /// The effective group.
    public let effectiveGroup: Named
    /// The supplementary groups.
    public let supplementaryGroups: [Named]

    /// Reads the identity of the calling process.
    public static func current() -> ProcessIdentity {
        let groups = currentGroupIDs()
        let (realID, effectiveID) = (getuid(), geteuid())
        // Each name is a read of the account database (a file, or a directory server): one
        // read for an id that is both real and effective, as it usually is.
        let realUser = user(realID)
        let realGroup = group(groups.real)
        return ProcessIdentity(
            realUser: realUser, effectiveUser: effectiveID == realID ? realUser : user(effectiveID),
            realGroup: realGroup, effectiveGroup: groups.effective == groups.real ? realGroup : group(groups.effective),
            supplementaryGroups: groups.supplementary.map(group))
    }

    /// The calling process's group ids (effective, real, then supplementary), from system calls
    /// alone: no name is looked up, so no directory server is asked.
    static func currentGroupIDs() -> (effective: UInt32, real: UInt32, supplementary: [UInt32]) {
        let count = getgroups(0, nil)
        var groups = [gid_t](repeating: 0, count: Int(max(count, 0)))
        let read = count > 0 ? getgroups(count, &groups) : 0
        return (getegid(), getgid(), Array(groups.prefix(Int(max(read, 0)))))
    }

    /// User `id` with its name: read lately (``AccountNames``) or now.
    package static func user(_ id: uid_t) -> Named {
        AccountNames.user(id) { named($0, AccountDatabase.user(id: $0)) }
    }

    /// Group `id` with its name: read lately (``AccountNames``) or now.
    static func group(_ id: gid_t) -> Named {
        AccountNames.group(id) { named($0, AccountDatabase.group(id: $0)) }
    }

    private static func named(_ id: UInt32, _ lookup: AccountDatabase.Lookup<String>) -> Named {
        switch lookup {
        case .found(let name): Named(id: id, name: name, lookupFailure: nil)
        case .notFound: Named(id: id, name: nil, lookupFailure: nil)
        case .failed(let reason): Named(id: id, name: nil, lookupFailure: reason)
        }
    }
}
