/// The systemd journal, written through its native protocol (systemd.io/JOURNAL_NATIVE_PROTOCOL)
/// on `/run/systemd/journal/socket`: each field is a journal field of its own, so
/// `journalctl CAPCTL_GATE=export` finds them and no value can forge another field, whatever
/// bytes it holds. Spoken here rather than through libsystemd's `sd_journal_sendv`, which blocks
/// on a full journal and reports success when no journal runs (it ignores ENOENT): a record
/// must be known to have reached a receiver, within a bounded wait, or be sent elsewhere.
struct SystemJournal: Sendable {
    /// Where journald listens for its native protocol.
    static let socketPath = "/run/systemd/journal/socket"

    private let socket: LogSocket

    init(path: String = Self.socketPath) {
        socket = LogSocket(path: path)
    }

    /// Whether journald listens on the socket now.
    var hasReceiver: Bool { socket.hasReceiver }

    /// Sends one entry of `KEY=value` fields (keys of capital letters, digits and `_`).
    /// An entry is one datagram: records are bounded to fit one (the protocol's other form, a
    /// sealed memfd for larger entries, is never needed).
    func send(_ fields: [(String, String)]) -> LogSocket.Delivery {
        socket.send(Self.entry(fields))
    }

    /// The protocol's serialization: `KEY=value\n`, or, for a value holding a line break,
    /// `KEY\n`, its length as a 64-bit little-endian integer, the value and `\n`.
    static func entry(_ fields: [(String, String)]) -> [UInt8] {
        var bytes: [UInt8] = []
        for (key, value) in fields {
            bytes += key.utf8
            if value.utf8.contains(UInt8(ascii: "\n")) {
                bytes.append(UInt8(ascii: "\n"))
                withUnsafeBytes(of: UInt64(value.utf8.count).littleEndian) { bytes += $0 }
            } else {
                bytes.append(UInt8(ascii: "="))
            }
            bytes += value.utf8
            bytes.append(UInt8(ascii: "\n"))
        }
        return bytes
    }
}
