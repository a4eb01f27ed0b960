import Glibc

/// What /proc says of a process.
enum ProcessFiles {
    /// Field 22 of /proc/PID/stat (start time in clock ticks since boot), which polkit compares.
    /// The command name (field 2) may hold spaces and parentheses, so fields are counted after its last `)`.
    static func startTime(of process: String) -> UInt64? {
        guard let bytes = try? FileContents.bytes(of: "/proc/\(process)/stat"),
            let close = bytes.lastIndex(of: UInt8(ascii: ")"))
        else { return nil }
        let fields = bytes[(close + 1)...].split(separator: UInt8(ascii: " "))
        // After the name: state is field 3, so start time (22) is the 20th.
        guard fields.count >= 20 else { return nil }
        return UInt64(String(decoding: fields[19], as: UTF8.self))
    }

    static func startTime(of pid: Int32) -> UInt64? { startTime(of: String(pid)) }

    /// /proc/PID/status, by field name.
    struct Status {
        let fields: [String: String]

        /// The second (effective) id of a `Uid:` or `Gid:` line.
        func effective(_ field: String) -> UInt32? {
            let ids = fields[field]?.split(whereSeparator: { $0 == " " || $0 == "\t" }) ?? []
            return ids.count >= 2 ? UInt32(ids[1]) : nil
        }

        var groups: [UInt32] {
            (fields["Groups"] ?? "").split(whereSeparator: { $0 == " " || $0 == "\t" }).compactMap { UInt32($0) }
        }

        /// The effective capability set.
        var effectiveCapabilities: UInt64? {
            fields["CapEff"].flatMap { UInt64($0.trimmingPrefixWhitespace, radix: 16) }
        }
    }

    static func status(of pid: Int32) -> Status? {
        guard let bytes = try? FileContents.bytes(of: "/proc/\(pid)/status") else { return nil }
        var fields: [String: String] = [:]
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[String(line[..<colon])] = String(line[line.index(after: colon)...]).trimmingPrefixWhitespace
        }
        return Status(fields: fields)
    }
}

extension StringProtocol {
    fileprivate var trimmingPrefixWhitespace: String { String(drop(while: { $0 == " " || $0 == "\t" })) }
}
