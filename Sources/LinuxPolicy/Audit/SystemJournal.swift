import Glibc
import LinuxBackends

/// The systemd journal, written through libsystemd's `sd_journal_sendv`, loaded with dlopen as
/// sd-bus is: the package builds and runs without libsystemd, and records then go to syslog.
/// Each field is a journal field of its own, so `journalctl CAPCTL_GATE=export` finds them and
/// no value can forge another field, whatever bytes it holds.
final class SystemJournal: @unchecked Sendable {
    // The function pointer never changes after loading; the library is never closed.
    private typealias SendFunction = @convention(c) (UnsafePointer<iovec>?, Int32) -> Int32
    private let sendv: SendFunction

    /// The journal through the default libsystemd, or nil when it does not load.
    static let system: SystemJournal? = SystemJournal(library: SystemdBusLibrary.defaultPath)

    private init?(library path: String) {
        guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL), let address = dlsym(handle, "sd_journal_sendv")
        else { return nil }
        sendv = unsafeBitCast(address, to: SendFunction.self)
    }

    /// Sends one entry of `KEY=value` fields; false when the journal did not take it (it does
    /// not run here, or its socket is full).
    func send(_ fields: [(String, String)]) -> Bool {
        // One buffer for every field, and the vectors pointing into it.
        var bytes: [UInt8] = []
        var ends: [Int] = []
        for (key, value) in fields {
            bytes += key.utf8
            bytes.append(UInt8(ascii: "="))
            bytes += value.utf8
            ends.append(bytes.count)
        }
        return bytes.withUnsafeMutableBytes { buffer in
            var start = 0
            let vectors = ends.map { end in
                defer { start = end }
                return iovec(iov_base: buffer.baseAddress! + start, iov_len: end - start)
            }
            return vectors.withUnsafeBufferPointer { sendv($0.baseAddress, Int32($0.count)) } >= 0
        }
    }
}
