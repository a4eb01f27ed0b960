#if canImport(Glibc)
import Glibc
#endif

/// Refuses policy files and directories that someone other than their owner or root could
/// change, the way sudo treats sudoers and sshd's StrictModes treats authorized_keys: a gate
/// is only as strong as the file that defines it.
enum PolicyFileSecurity {
    /// The problem with `path`, or nil when it is safe. Owners allowed: root and this process's user.
    static func problem(with path: String, isDirectory: Bool) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return "cannot examine: \(String(cString: strerror(errno)))" }
        let what = isDirectory ? "directory" : "file"
        let owner = info.st_uid
        guard owner == 0 || owner == geteuid() else {
            return "refusing this policy \(what): it is owned by uid \(owner), not by root or by uid \(geteuid())"
        }
        if info.st_mode & S_IWOTH != 0 {
            return "refusing this policy \(what): anyone can write it (mode \(octal(info.st_mode))); run chmod o-w"
        }
        if info.st_mode & S_IWGRP != 0, info.st_gid != 0 {
            return "refusing this policy \(what): group \(info.st_gid) can write it (mode \(octal(info.st_mode))); run chmod g-w"
        }
        return nil
    }

    private static func octal(_ mode: mode_t) -> String {
        "0" + String(mode & 0o7777, radix: 8)
    }
}
