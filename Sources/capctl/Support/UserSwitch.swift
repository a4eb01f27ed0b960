import CLinuxSupport
import Glibc
import LinuxBackends

/// Becomes another user for `capctl run --as-user`, as `runuser -l` and `sudo -i` do: the user's
/// login groups, group and user ids (real, effective and saved, checked after the change), and an
/// environment made anew: `HOME`, `SHELL`, `USER`, `LOGNAME` and a standard `PATH` from the user
/// database, `TERM`, `LANG` and `LC_ALL` kept, nothing else; the working directory is the home
/// directory (or / when it cannot be entered). Leaving root clears every Linux capability.
enum UserSwitch {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static func become(_ name: String) throws(Failure) {
        let entry: AccountDatabase.UserEntry
        switch AccountDatabase.userEntry(named: name) {
        case .found(let found): entry = found
        case .notFound: throw Failure(description: "no user \"\(name)\" in the user database")
        case .failed(let reason): throw Failure(description: reason)
        }
        let uid = entry.uid
        let gid = entry.gid
        let home = entry.home
        let shell = entry.shell.isEmpty ? "/bin/sh" : entry.shell
        let code = clinux_become_user(name, uid, gid)
        guard code == 0 else {
            throw Failure(description: "cannot take \(name)'s groups and ids: \(String(cString: strerror(code)))")
        }
        let kept: [(String, String)] = ["TERM", "LANG", "LC_ALL"].compactMap { key in
            getenv(key).map { (key, String(cString: $0)) }
        }
        clearenv()
        for (key, value) in kept { setenv(key, value, 1) }
        setenv("HOME", home, 1)
        setenv("SHELL", shell, 1)
        setenv("USER", name, 1)
        setenv("LOGNAME", name, 1)
        setenv(
            "PATH",
            uid == 0 ? "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" : "/usr/local/bin:/usr/bin:/bin",
            1)
        if chdir(home) != 0 { _ = chdir("/") }
    }

}
