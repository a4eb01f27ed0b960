import Capabilities
import ConfigurationFiles
import Glibc

/// A user or group named in a capability, resolved to its id when the capability is made.
enum AccountLookup {
    /// The user id for a name or a number.
    static func userID(_ nameOrID: String) throws(CapabilityConfigurationError) -> (id: uid_t, name: String?) {
        if let id = uid_t(nameOrID) { return (id, ProcessIdentity.user(id).name) }
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16384)
        guard !nameOrID.isEmpty, getpwnam_r(nameOrID, &entry, &buffer, buffer.count, &result) == 0, result != nil else {
            throw CapabilityConfigurationError("unknown user \"\(nameOrID)\" (not in the user database)")
        }
        return (entry.pw_uid, nameOrID)
    }

    /// The group id for a name or a number.
    static func groupID(_ nameOrID: String) throws(CapabilityConfigurationError) -> (id: gid_t, name: String?) {
        if let id = gid_t(nameOrID) { return (id, ProcessIdentity.group(id).name) }
        var entry = group()
        var result: UnsafeMutablePointer<group>?
        var buffer = [CChar](repeating: 0, count: 65536)
        guard !nameOrID.isEmpty, getgrnam_r(nameOrID, &entry, &buffer, buffer.count, &result) == 0, result != nil else {
            throw CapabilityConfigurationError("unknown group \"\(nameOrID)\" (not in the group database)")
        }
        return (entry.gr_gid, nameOrID)
    }
}
