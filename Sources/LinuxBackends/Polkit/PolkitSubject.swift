import Glibc

/// The process polkit is asked about: this one, as a `unix-process` subject with its pid, its
/// start time and its user, which together name it even if the pid is reused later.
enum PolkitSubject {
    /// This process's subject, `(sa{sv})`.
    static func currentProcess() throws(DBusError) -> DBusValue {
        let pid = getpid()
        guard let startTime = startTime(ofProcess: "self") else {
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

    /// Field 22 of /proc/PID/stat (start time in clock ticks since boot), which polkit compares.
    /// The command name (field 2) may hold spaces and parentheses, so fields are counted after its last `)`.
    static func startTime(ofProcess process: String) -> UInt64? {
        guard let bytes = try? FileContents.bytes(of: "/proc/\(process)/stat"),
            let close = bytes.lastIndex(of: UInt8(ascii: ")"))
        else { return nil }
        let fields = bytes[(close + 1)...].split(separator: UInt8(ascii: " "))
        // After the name: state is field 3, so start time (22) is the 20th.
        guard fields.count >= 20 else { return nil }
        return UInt64(String(decoding: fields[19], as: UTF8.self))
    }
}
