import Locking

/// Names of user and group ids read from the account databases lately, kept for a minute: a
/// denial's reason lists the client's groups by name (`groups: staff(50), users(100)`), and a
/// service denying the same users again and again would otherwise read /etc/group (or ask a
/// directory server) for every decision, off the client's thread. As nscd and sssd keep entries;
/// a name changed in the database shows in reasons within a minute. Only the reason's words come
/// from here: every decision is made from ids.
enum AccountNames {
    /// How long a name read is used without asking again.
    static let lifetime = Duration.seconds(60)
    /// Names kept at most; past it the oldest are forgotten all at once (ids come from the kernel,
    /// so a client can only add the few it has, but the bound does not rely on that).
    static let capacity = 4096

    private enum Key: Hashable {
        case user(UInt32)
        case group(UInt32)
    }

    private static let names = Lock<[Key: (named: ProcessIdentity.Named, read: ContinuousClock.Instant)]>([:])

    /// User `id`'s name: kept, or read now (and kept, unless the database failed to answer).
    static func user(_ id: UInt32, reading read: (UInt32) -> ProcessIdentity.Named) -> ProcessIdentity.Named {
        named(.user(id)) { read(id) }
    }

    /// Group `id`'s name: kept, or read now (and kept, unless the database failed to answer).
    static func group(_ id: UInt32, reading read: (UInt32) -> ProcessIdentity.Named) -> ProcessIdentity.Named {
        named(.group(id)) { read(id) }
    }

    /// Whether every one of these ids has a name kept and fresh: then naming them asks no database.
    static func areKept(users: [UInt32] = [], groups: [UInt32]) -> Bool {
        let now = ContinuousClock.now
        return names.withLock { names in
            users.allSatisfy { names[.user($0)].map { now - $0.read < lifetime } ?? false }
                && groups.allSatisfy { names[.group($0)].map { now - $0.read < lifetime } ?? false }
        }
    }

    private static func named(_ key: Key, reading read: () -> ProcessIdentity.Named) -> ProcessIdentity.Named {
        let now = ContinuousClock.now
        if let kept = names.withLock({ $0[key] }), now - kept.read < lifetime { return kept.named }
        let named = read()
        // A lookup that failed is asked again next time: the directory may be back.
        guard named.lookupFailure == nil else { return named }
        names.withLock { names in
            if names.count >= capacity { names.removeAll(keepingCapacity: true) }
            names[key] = (named, now)
        }
        return named
    }
}
