import Glibc

/// The process polkit is asked about: this one, as a `unix-process` subject with its pid, its
/// start time and its user, which together name it even if the pid is reused later.
enum PolkitSubject {
    /// This process's subject, `(sa{sv})`.
    static func currentProcess() throws(DBusError) -> DBusValue {
        let pid = getpid()
        guard let startTime = ProcessFiles.startTime(of: "self") else {
            throw DBusError(DBusError.local, "cannot read this process's start time from /proc/self/stat")
        }
        return .structure([
            .string("unix-process"),
            .variantDictionary([
                "pid": .uint32(UInt32(pid)), "start-time": .uint64(startTime),
                "uid": .int32(Int32(bitPattern: getuid())),
            ]),
        ])
    }

    /// Another process's subject, as `pkcheck --process PID` makes it: pid, start time and uid.
    static func process(pid: Int32, startTime: UInt64, uid: UInt32) -> DBusValue {
        .structure([
            .string("unix-process"),
            .variantDictionary([
                "pid": .uint32(UInt32(bitPattern: pid)), "start-time": .uint64(startTime),
                "uid": .int32(Int32(bitPattern: uid)),
            ]),
        ])
    }
}
