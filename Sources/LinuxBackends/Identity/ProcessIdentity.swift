import Glibc

/// Who the current process runs as: user and group ids, with names where the system knows them.
public struct ProcessIdentity: Sendable, Equatable {
    /// A user or group id with its name, if it has one.
    public struct Named: Sendable, Equatable, CustomStringConvertible {
        /// The numeric id.
        public let id: UInt32
        /// The name from the user or group database, or nil.
        public let name: String?

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
        let count = getgroups(0, nil)
        var groups = [gid_t](repeating: 0, count: Int(max(count, 0)))
        let read = count > 0 ? getgroups(count, &groups) : 0
        return ProcessIdentity(
            realUser: user(getuid()), effectiveUser: user(geteuid()),
            realGroup: group(getgid()), effectiveGroup: group(getegid()),
            supplementaryGroups: groups.prefix(Int(max(read, 0))).map(group))
    }

    static func user(_ id: uid_t) -> Named {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        let status = getpwuid_r(id, &entry, &buffer, buffer.count, &result)
        let name = status == 0 && result != nil ? String(cString: entry.pw_name) : nil
        return Named(id: id, name: name)
    }

    static func group(_ id: gid_t) -> Named {
        var entry = Glibc.group()
        var result: UnsafeMutablePointer<Glibc.group>?
        var buffer = [CChar](repeating: 0, count: 16384)
        let status = getgrgid_r(id, &entry, &buffer, buffer.count, &result)
        let name = status == 0 && result != nil ? String(cString: entry.gr_name) : nil
        return Named(id: id, name: name)
    }
}
