import Capabilities
import ConfigurationFiles
import Glibc

/// A user or group a capability names, resolved to its id when the capability is made, or
/// left to resolve later when the database could not answer then.
enum AccountReference: Sendable {
    case resolved(id: UInt32, name: String?)
    /// The database failed (a directory out of reach); `reason` says how. The capability is
    /// unavailable until a later lookup answers.
    case unresolved(name: String, reason: String)

    var id: UInt32? {
        if case .resolved(let id, _) = self { return id }
        return nil
    }

    var name: String? {
        switch self {
        case .resolved(_, let name): name
        case .unresolved(let name, _): name
        }
    }

    var label: String {
        switch self {
        case .resolved(let id, let name): name.map { "\($0)(\(id))" } ?? String(id)
        case .unresolved(let name, _): name
        }
    }
}

/// Resolves the users and groups capabilities name. A name the database does not know is a
/// configuration error, at once; a lookup that failed is not (the policy is not wrong, the
/// directory is away), and is tried again when the status is asked.
enum AccountLookup {
    static func user(_ nameOrID: String) throws(CapabilityConfigurationError) -> AccountReference {
        if let id = uid_t(nameOrID) { return .resolved(id: id, name: ProcessIdentity.user(id).name) }
        switch AccountDatabase.user(named: nameOrID) {
        case .found(let id): return .resolved(id: id, name: nameOrID)
        case .notFound: throw CapabilityConfigurationError("unknown user \"\(nameOrID)\" (not in the user database)")
        case .failed(let reason): return .unresolved(name: nameOrID, reason: reason)
        }
    }

    static func group(_ nameOrID: String) throws(CapabilityConfigurationError) -> AccountReference {
        if let id = gid_t(nameOrID) { return .resolved(id: id, name: ProcessIdentity.group(id).name) }
        switch AccountDatabase.group(named: nameOrID) {
        case .found(let id): return .resolved(id: id, name: nameOrID)
        case .notFound: throw CapabilityConfigurationError("unknown group \"\(nameOrID)\" (not in the group database)")
        case .failed(let reason): return .unresolved(name: nameOrID, reason: reason)
        }
    }

    /// An id, or the status that stands for it while it cannot be had.
    enum Resolution {
        case id(UInt32)
        case unavailable(CapabilityStatus)
    }

    /// `reference` resolved now, or the status that stands for it while it cannot be.
    static func resolve(_ reference: AccountReference, group: Bool) -> Resolution {
        switch reference {
        case .resolved(let id, _): return .id(id)
        case .unresolved(let name, _):
            do throws(CapabilityConfigurationError) {
                let again = try group ? self.group(name) : user(name)
                switch again {
                case .resolved(let id, _): return .id(id)
                case .unresolved(_, let reason):
                    return .unavailable(.unavailable("cannot resolve \(name): \(reason)", cause: .error))
                }
            } catch {
                return .unavailable(.unavailable(error.description, cause: .misconfigured))
            }
        }
    }
}
