package import Glibc

/// The user and group databases (NSS: /etc/passwd and /etc/group, sssd, LDAP, ...), read with
/// glibc's reentrant calls and their three outcomes told apart: a zero return with no entry is
/// "not found"; `ERANGE` asks for a larger buffer, which is given (from sysconf's hint, doubling,
/// up to 64 MiB: an 8,000-member group needs more than 64 KiB); any other return is a lookup
/// that failed (the directory is unreachable, say), which is never read as "not found".
package enum AccountDatabase {
    /// A lookup's outcome.
    package enum Lookup<Value> {
        case found(Value)
        case notFound
        /// Why the database could not answer.
        case failed(String)
    }

    /// The largest buffer offered to one lookup.
    static let maximumBuffer = 64 << 20

    package static func user(named name: String) -> Lookup<uid_t> {
        guard !name.isEmpty, !name.utf8.contains(0) else { return .notFound }
        var entry = passwd()
        return read(hint: Int32(_SC_GETPW_R_SIZE_MAX), what: "user \(name)") { buffer, result in
            getpwnam_r(name, &entry, buffer.baseAddress!, buffer.count, &result)
        } value: { (result: UnsafeMutablePointer<passwd>) in
            result.pointee.pw_uid
        }
    }

    /// A user's login entry: name, primary group, home directory and shell.
    package struct UserEntry {
        package let uid: UInt32
        package let gid: UInt32
        package let name: String
        package let home: String
        package let shell: String

        init(_ entry: passwd) {
            uid = entry.pw_uid
            gid = entry.pw_gid
            name = String(cString: entry.pw_name)
            home = entry.pw_dir.map { String(cString: $0) } ?? "/"
            shell = entry.pw_shell.map { String(cString: $0) } ?? ""
        }
    }

    static func userEntry(id: uid_t) -> Lookup<UserEntry> {
        var entry = passwd()
        return read(hint: Int32(_SC_GETPW_R_SIZE_MAX), what: "uid \(id)") { buffer, result in
            getpwuid_r(id, &entry, buffer.baseAddress!, buffer.count, &result)
        } value: { (result: UnsafeMutablePointer<passwd>) in
            UserEntry(result.pointee)
        }
    }

    package static func userEntry(named name: String) -> Lookup<UserEntry> {
        guard !name.isEmpty, !name.utf8.contains(0) else { return .notFound }
        var entry = passwd()
        return read(hint: Int32(_SC_GETPW_R_SIZE_MAX), what: "user \(name)") { buffer, result in
            getpwnam_r(name, &entry, buffer.baseAddress!, buffer.count, &result)
        } value: { (result: UnsafeMutablePointer<passwd>) in
            UserEntry(result.pointee)
        }
    }

    package static func user(id: uid_t) -> Lookup<String> {
        var entry = passwd()
        return read(hint: Int32(_SC_GETPW_R_SIZE_MAX), what: "uid \(id)") { buffer, result in
            getpwuid_r(id, &entry, buffer.baseAddress!, buffer.count, &result)
        } value: { (result: UnsafeMutablePointer<passwd>) in
            String(cString: result.pointee.pw_name)
        }
    }

    package static func group(named name: String) -> Lookup<gid_t> {
        guard !name.isEmpty, !name.utf8.contains(0) else { return .notFound }
        var entry = Glibc.group()
        return read(hint: Int32(_SC_GETGR_R_SIZE_MAX), what: "group \(name)") { buffer, result in
            getgrnam_r(name, &entry, buffer.baseAddress!, buffer.count, &result)
        } value: { (result: UnsafeMutablePointer<Glibc.group>) in
            result.pointee.gr_gid
        }
    }

    package static func group(id: gid_t) -> Lookup<String> {
        var entry = Glibc.group()
        return read(hint: Int32(_SC_GETGR_R_SIZE_MAX), what: "gid \(id)") { buffer, result in
            getgrgid_r(id, &entry, buffer.baseAddress!, buffer.count, &result)
        } value: { (result: UnsafeMutablePointer<Glibc.group>) in
            String(cString: result.pointee.gr_name)
        }
    }

    private static func read<Entry, Value>(
        hint: Int32, what: String,
        _ call: (UnsafeMutableBufferPointer<CChar>, inout UnsafeMutablePointer<Entry>?) -> Int32,
        value: (UnsafeMutablePointer<Entry>) -> Value
    ) -> Lookup<Value> {
        let suggested = sysconf(hint)
        var size = suggested > 0 ? min(suggested, maximumBuffer) : 1024
        while true {
            let buffer = UnsafeMutableBufferPointer<CChar>.allocate(capacity: size)
            defer { buffer.deallocate() }
            var result: UnsafeMutablePointer<Entry>?
            let code = call(buffer, &result)
            if code == 0 {
                guard let result else { return .notFound }
                return .found(value(result))
            }
            if code == ERANGE {
                guard size < maximumBuffer else {
                    return .failed("the entry for \(what) is larger than \(maximumBuffer >> 20) MiB")
                }
                size = min(size * 2, maximumBuffer)
                continue
            }
            return .failed("looking up \(what) failed: \(String(cString: strerror(code)))")
        }
    }
}
