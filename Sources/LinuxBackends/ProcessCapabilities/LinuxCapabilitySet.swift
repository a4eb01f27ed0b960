import CLinuxSupport
import ConfigurationFiles
import Glibc

/// A set of Linux capabilities (capabilities(7)), such as a process's effective set.
///
/// Root is not assumed to hold them all: containers and services drop some, so the effective
/// set is read from the kernel.
///
/// ```swift
/// let effective = try LinuxCapabilitySet.effective()
/// print(effective)  // "cap_net_bind_service" or "(none)"
/// let wanted = try LinuxCapabilitySet(names: ["cap_net_bind_service"])
/// print(effective.contains(LinuxCapabilitySet.number(of: "cap_net_bind_service")!), wanted)
/// ```
public struct LinuxCapabilitySet: Sendable, Equatable, CustomStringConvertible {
    /// The raw bit mask, bit n for capability number n.
    public let mask: UInt64

    /// Creates a set from a bit mask.
    public init(mask: UInt64) { self.mask = mask }

    /// The capability names the kernel defines, by number.
    public static let names: [String] = [
        "CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_DAC_READ_SEARCH", "CAP_FOWNER", "CAP_FSETID",
        "CAP_KILL", "CAP_SETGID", "CAP_SETUID", "CAP_SETPCAP", "CAP_LINUX_IMMUTABLE",
        "CAP_NET_BIND_SERVICE", "CAP_NET_BROADCAST", "CAP_NET_ADMIN", "CAP_NET_RAW", "CAP_IPC_LOCK",
        "CAP_IPC_OWNER", "CAP_SYS_MODULE", "CAP_SYS_RAWIO", "CAP_SYS_CHROOT", "CAP_SYS_PTRACE",
        "CAP_SYS_PACCT", "CAP_SYS_ADMIN", "CAP_SYS_BOOT", "CAP_SYS_NICE", "CAP_SYS_RESOURCE",
        "CAP_SYS_TIME", "CAP_SYS_TTY_CONFIG", "CAP_MKNOD", "CAP_LEASE", "CAP_AUDIT_WRITE",
        "CAP_AUDIT_CONTROL", "CAP_SETFCAP", "CAP_MAC_OVERRIDE", "CAP_MAC_ADMIN", "CAP_SYSLOG",
        "CAP_WAKE_ALARM", "CAP_BLOCK_SUSPEND", "CAP_AUDIT_READ", "CAP_PERFMON", "CAP_BPF",
        "CAP_CHECKPOINT_RESTORE",
    ]

    /// The number of a capability name (`CAP_NET_BIND_SERVICE` or `net_bind_service`), or nil.
    public static func number(of name: String) -> Int? {
        let upper = name.asciiUppercased
        let full = upper.hasPrefix("CAP_") ? upper : "CAP_" + upper
        return names.firstIndex(of: full)
    }

    /// Whether the set holds the capability with the given number.
    public func contains(_ number: Int) -> Bool {
        number >= 0 && number < 64 && mask & (1 << UInt64(number)) != 0
    }

    /// The names of the capabilities in the set; unnamed bits appear as `cap_N`.
    public var capabilityNames: [String] {
        (0..<64).filter(contains).map { $0 < Self.names.count ? Self.names[$0] : "cap_\($0)" }
    }

    public var description: String {
        mask == 0 ? "(none)" : capabilityNames.joined(separator: " ")
    }

    /// Errors reading the set.
    public enum ReadError: Error, Equatable, CustomStringConvertible {
        /// The status file could not be read (`errno` says why).
        case unreadable(path: String, errno: Int32)
        /// The status file has no line for this field (`CapEff`, say).
        case missingField(String)
        /// The field's value is not the hexadecimal mask the kernel writes.
        case malformed(field: String, value: String)

        public var description: String {
            switch self {
            case .unreadable(let path, let code): "cannot read \(path): errno \(code)"
            case .missingField(let field): "no \(field) line in the process status"
            case .malformed(let field, let value): "\(field) is not a hexadecimal mask: '\(value)'"
            }
        }
    }

    /// Parses a field such as `CapEff` out of the text of /proc/PID/status.
    public static func parse(field: String, fromStatus text: String) throws(ReadError) -> LinuxCapabilitySet {
        try parse(field: field, fromStatus: Array(text.utf8))
    }

    /// The same, over the file's bytes: the kernel writes ASCII lines, and walking a string's
    /// indices cost some 600 instructions a line of the status file, which has fifty.
    static func parse(field: String, fromStatus bytes: [UInt8]) throws(ReadError) -> LinuxCapabilitySet {
        let prefix = Array(field.utf8) + [UInt8(ascii: ":")]
        func isBlank(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        var lineStart = 0
        while lineStart < bytes.count {
            var lineEnd = lineStart
            while lineEnd < bytes.count, bytes[lineEnd] != UInt8(ascii: "\n") { lineEnd += 1 }
            if lineEnd - lineStart >= prefix.count, bytes[lineStart..<lineStart + prefix.count].elementsEqual(prefix) {
                var valueStart = lineStart + prefix.count
                var valueEnd = lineEnd
                while valueStart < valueEnd, isBlank(bytes[valueStart]) { valueStart += 1 }
                while valueEnd > valueStart, isBlank(bytes[valueEnd - 1]) { valueEnd -= 1 }
                let digits = String(decoding: bytes[valueStart..<valueEnd], as: UTF8.self)
                guard !digits.isEmpty, let mask = UInt64(digits, radix: 16) else {
                    throw .malformed(field: field, value: digits)
                }
                return LinuxCapabilitySet(mask: mask)
            }
            lineStart = lineEnd + 1
        }
        throw .missingField(field)
    }

    /// The calling process's effective set: capget(2) for its main thread, the set
    /// /proc/self/status shows as `CapEff`. The kernel makes that file, memory figures and all,
    /// at every read (a `capctl check` started 7 % faster without it); should capget be refused
    /// (a seccomp filter), the file is read instead.
    public static func effective() throws(ReadError) -> LinuxCapabilitySet {
        var mask: UInt64 = 0
        if clinux_effective_capabilities(&mask) == 0 { return LinuxCapabilitySet(mask: mask) }
        return try effectiveFromStatusFile()
    }

    /// The calling process's effective set, from /proc/self/status.
    static func effectiveFromStatusFile() throws(ReadError) -> LinuxCapabilitySet {
        let bytes: [UInt8]
        do throws(FileContents.ReadError) {
            bytes = try FileContents.bytes(of: "/proc/self/status")
        } catch {
            throw .unreadable(path: error.path, errno: error.code)
        }
        return try parse(field: "CapEff", fromStatus: bytes)
    }
}
