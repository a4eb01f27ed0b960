import CLinuxSupport
import Glibc

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
        var entry = passwd()
        var buffer = [CChar](repeating: 0, count: 65536)
        var result: UnsafeMutablePointer<passwd>?
        guard getpwnam_r(name, &entry, &buffer, buffer.count, &result) == 0, result != nil else {
            throw Failure(description: "no user \"\(name)\" in the user database")
        }
        let uid = entry.pw_uid
        let gid = entry.pw_gid
        let home = String(cString: entry.pw_dir)
        let shell = entry.pw_shell.map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/bin/sh"
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
