import Glibc

extension KeptLoginRecords {
    /// The records of the user a process runs as, when that process decides for itself (capctl
    /// in-process): root's in ``systemDirectory``; another user's in the first directory of
    /// their own of `$XDG_RUNTIME_DIR`, `/run/user/UID` and the home directory's `.cache` (the
    /// account database's home, not `$HOME`), each under `capctl/keep`. A directory counts as
    /// the user's own when it is a real directory (not a link) owned by the user and writable by
    /// no one else: after `su` without `-l` the runtime directory named by the environment is
    /// still the first user's, and is passed over. With none, the records keep nothing and say
    /// which places were tried and why each failed, so `authorize` can tell the user.
    ///
    /// ```swift
    /// let records = KeptLoginRecords.forUser(
    ///     uid: geteuid(), runtimeDirectory: ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"])
    /// ```
    public static func forUser(uid: UInt32, runtimeDirectory: String?) -> KeptLoginRecords {
        if uid == 0 { return KeptLoginRecords(directory: systemDirectory) }
        let home: String? =
            switch AccountDatabase.userEntry(id: uid) {
            case .found(let entry): entry.home
            case .notFound, .failed: nil
            }
        switch KeptRecordsLocation.choose(uid: uid, runtimeDirectory: runtimeDirectory, home: home) {
        case .directory(let directory): return KeptLoginRecords(directory: directory)
        case .none(let reason): return KeptLoginRecords(unusable: reason)
        }
    }
}

/// The choice ``KeptLoginRecords/forUser(uid:runtimeDirectory:)`` makes, apart from the
/// account database so it can be tried on directories a test makes.
package enum KeptRecordsLocation: Equatable {
    case directory(String)
    /// No place of the user's own, with what was tried.
    case none(String)

    package static func choose(
        uid: UInt32, runtimeDirectory: String?, home: String?, userRuntimeRoot: String = "/run/user"
    ) -> KeptRecordsLocation {
        var tried: [String] = []
        let candidates: [(label: String, path: String?, records: String)] = [
            ("XDG_RUNTIME_DIR", runtimeDirectory, "/capctl/keep"),
            ("the runtime directory", "\(userRuntimeRoot)/\(uid)", "/capctl/keep"),
            ("the home directory", home, "/.cache/capctl/keep"),
        ]
        for candidate in candidates {
            guard let path = candidate.path, path.hasPrefix("/") else {
                tried.append("\(candidate.label) is not set")
                continue
            }
            if let objection = objection(to: path, uid: uid) {
                tried.append("\(candidate.label) \(path) \(objection)")
                continue
            }
            return .directory(path + candidate.records)
        }
        return .none("no directory of uid \(uid)'s own to keep it in (" + tried.joined(separator: "; ") + ")")
    }

    /// Why `path` is not the user's own directory, or nil when it is.
    private static func objection(to path: String, uid: UInt32) -> String? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return "does not exist" }
        guard info.st_mode & S_IFMT == S_IFDIR else { return "is not a directory" }
        guard info.st_uid == uid else { return "belongs to uid \(info.st_uid)" }
        guard info.st_mode & 0o022 == 0 else { return "may be written by others" }
        return nil
    }
}
