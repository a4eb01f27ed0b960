import ArgumentParser

/// `--for-process PID,START-TIME,UID`, as polkit's `pkcheck --process` takes it: the process, when
/// it started (clock ticks since boot, field 22 of `/proc/PID/stat`) and the user it runs as. The
/// check is refused unless all three still hold (Docs/Security.md, "A subject").
struct ProcessReference: Equatable, ExpressibleByArgument {
    var pid: Int32
    var startTime: UInt64
    var uid: UInt32

    init(pid: Int32, startTime: UInt64, uid: UInt32) {
        self.pid = pid
        self.startTime = startTime
        self.uid = uid
    }

    /// `PID,START-TIME,UID`; nil for anything else, a bare pid included.
    init?(argument: String) {
        let parts = argument.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy { (0x30...0x39).contains($0) } }),
            let pid = Int32(parts[0]), pid > 0, let startTime = UInt64(parts[1]), let uid = UInt32(parts[2])
        else { return nil }
        self.init(pid: pid, startTime: startTime, uid: uid)
    }

    static var defaultValueDescription: String { "pid,start-time,uid" }
}
