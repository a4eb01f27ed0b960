import CLinuxSupport
import Glibc
import SystemPackage

/// What /proc says of a process.
package enum ProcessFiles {
    /// What /proc/PID/stat says of a process's identity over time.
    package struct Stat: Equatable {
        /// Field 4: the parent's pid, 0 when the parent is out of sight (another PID namespace).
        let parent: Int32
        /// Field 6: the session id.
        let session: Int32
        /// Field 7: the controlling terminal's device number, 0 for none.
        package let terminal: UInt32
        /// Field 22: the start time in clock ticks since boot, which polkit compares.
        package let startTime: UInt64
    }

    /// /proc/PID/stat. The command name (field 2) may hold spaces and parentheses, so fields
    /// are counted after its last `)`.
    package static func stat(of process: String) -> Stat? {
        guard let bytes = try? FileContents.bytes(of: "/proc/\(process)/stat") else { return nil }
        return stat(parsing: bytes)
    }

    /// The fields of a /proc/PID/stat file's `bytes`.
    static func stat(parsing bytes: [UInt8]) -> Stat? {
        guard let close = bytes.lastIndex(of: UInt8(ascii: ")")) else { return nil }
        let fields = bytes[(close + 1)...].split(separator: UInt8(ascii: " "))
        // After the name, the state is field 3: field N is at N - 3.
        guard fields.count >= 20, let parent = Int32(String(decoding: fields[1], as: UTF8.self)),
            let session = Int32(String(decoding: fields[3], as: UTF8.self)),
            let terminal = Int32(String(decoding: fields[4], as: UTF8.self)),
            let startTime = UInt64(String(decoding: fields[19], as: UTF8.self))
        else { return nil }
        return Stat(parent: parent, session: session, terminal: UInt32(bitPattern: terminal), startTime: startTime)
    }

    static func startTime(of process: String) -> UInt64? { stat(of: process)?.startTime }

    static func startTime(of pid: Int32) -> UInt64? { startTime(of: String(pid)) }

    /// Whether a process runs in the user namespace this one runs in (on a host, the initial
    /// one). Capabilities in `/proc/PID/status` are relative to the process's own user namespace:
    /// after `unshare --user --map-root-user` any user shows a full `CapEff` that grants nothing
    /// here. `/proc/PID/ns/user` names the namespace (its inode); reading it of another user's
    /// process needs the right to trace it, so a caller without it cannot tell.
    package enum UserNamespace: Equatable {
        case same
        case other
        case unknown(String)
    }

    /// The user namespace of the process whose /proc directory is open as `directory`, beside
    /// this process's: their `ns/user` links name them (`user:[INODE]`, all on the one namespace
    /// file system), read without the lookup a stat of the namespace itself costs.
    static func userNamespace(in directory: Int32, of pid: Int32) -> UserNamespace {
        let own: [UInt8]
        switch ownUserNamespace {
        case .success(let name): own = name
        case .failure(let code):
            return .unknown("cannot read this process's user namespace: \(String(cString: strerror(code.rawValue)))")
        }
        switch link(at: directory, "ns/user") {
        case .success(let theirs): return own == theirs ? .same : .other
        case .failure(let code):
            return .unknown(
                "cannot tell which user namespace process \(pid) runs in: \(String(cString: strerror(code.rawValue)))")
        }
    }

    /// This process's user namespace, read once. A process can change it only alone: unshare and
    /// setns refuse a user namespace to a process with more than one thread, and a process that
    /// decides for subjects runs several (Swift's cooperative pool at least). Even a program that
    /// later entered a namespace of its own would count its parent's capabilities as this
    /// namespace's, which they hold (a parent namespace's capabilities reach into its children),
    /// and its own new namespace's as another's: stricter, never looser.
    private static let ownUserNamespace = link(at: AT_FDCWD, "/proc/self/ns/user")

    /// The target of the symbolic link `name`, relative to `directory`.
    private static func link(at directory: Int32, _ name: String) -> Result<[UInt8], Errno> {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 256) { buffer in
            let count = readlinkat(directory, name, buffer.baseAddress!, buffer.count)
            guard count >= 0 else { return .failure(Errno(rawValue: errno)) }
            guard count < buffer.count else { return .failure(Errno(rawValue: ENAMETOOLONG)) }
            return .success(buffer[..<count].map { UInt8(bitPattern: $0) })
        }
    }

    /// The audit login session (`/proc/PID/sessionid`, set by pam_loginuid at login), nil when unset.
    static func loginSession(of pid: Int32) -> UInt32? {
        guard let bytes = try? FileContents.bytes(of: "/proc/\(pid)/sessionid"),
            let session = UInt32(String(decoding: bytes, as: UTF8.self)), session != UInt32.max
        else { return nil }
        return session
    }

    /// A terminal's name from its device number, as `ps` shows it: `pts/3`, `tty2`, `ttyS0`.
    package static func terminalName(_ device: UInt32) -> String? {
        guard device != 0 else { return nil }
        let major = (device >> 8) & 0xfff
        let minor = (device & 0xff) | ((device >> 12) & 0xfff00)
        switch major {
        case 136...143: return "pts/\((major - 136) * 256 + minor)"
        case 4 where minor < 64: return "tty\(minor)"
        case 4: return "ttyS\(minor - 64)"
        case 5 where minor == 1: return "console"
        default: return "tty device \(major):\(minor)"
        }
    }

    /// /proc/PID/status: the fields a decision reads.
    struct Status {
        /// The effective user id (the second of the `Uid:` line), nil when absent or malformed.
        private(set) var effectiveUser: UInt32?
        /// The effective group id (the second of the `Gid:` line).
        private(set) var effectiveGroup: UInt32?
        /// The supplementary groups (`Groups:`), nil when absent or malformed.
        private(set) var groups: [UInt32]?
        /// The effective capability set (`CapEff:`, hexadecimal).
        private(set) var effectiveCapabilities: UInt64?
        /// The permitted capability set (`CapPrm:`).
        private(set) var permittedCapabilities: UInt64?
        /// Whether the real, effective, saved and file-system ids agree (`Uid:`, `Gid:`).
        private(set) var userIdsAgree = false
        private(set) var groupIdsAgree = false
        /// Whether the process has exited and waits to be reaped (`State:\tZ (zombie)`).
        private(set) var isZombie = false

        /// Whether its user, group and supplementary groups are fixed for as long as it runs this
        /// program: its ids agree (so no set*id call can pick another of them) and it cannot gain
        /// CAP_SETUID or CAP_SETGID back without starting a program (a permitted set only shrinks).
        var credentialsFixed: Bool {
            guard userIdsAgree, groupIdsAgree, let permitted = permittedCapabilities else { return false }
            let setUserOrGroup: UInt64 = 1 << 6 | 1 << 7  // CAP_SETGID, CAP_SETUID
            return permitted & setUserOrGroup == 0
        }

        /// The lines of `bytes` it reads, parsed where they stand: a service reads one per decision
        /// for a client, and strings per line (then a dictionary of them) were most of its cost.
        init(parsing bytes: [UInt8]) {
            bytes.withUnsafeBufferPointer { text in
                guard let base = text.baseAddress else { return }
                var start = 0
                while start < text.count {
                    let end =
                        memchr(base + start, Int32(UInt8(ascii: "\n")), text.count - start).map {
                            base.distance(to: $0.assumingMemoryBound(to: UInt8.self))
                        } ?? text.count
                    read(line: UnsafeBufferPointer(rebasing: text[start..<end]))
                    start = end + 1
                }
            }
        }

        private mutating func read(line: UnsafeBufferPointer<UInt8>) {
            // Only lines of these initials are read (Uid, Gid, Groups, CapEff, CapPrm, State).
            switch line.first {
            case UInt8(ascii: "U"), UInt8(ascii: "G"), UInt8(ascii: "C"), UInt8(ascii: "S"): break
            default: return
            }
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return }
            let name = UnsafeBufferPointer(rebasing: line[..<colon])
            let value = UnsafeBufferPointer(rebasing: line[(colon + 1)...])
            if Self.equal(name, "Uid") {
                (effectiveUser, userIdsAgree) = Self.ids(value)
            } else if Self.equal(name, "Gid") {
                (effectiveGroup, groupIdsAgree) = Self.ids(value)
            } else if Self.equal(name, "Groups") {
                var read: [UInt32] = []
                let count = Self.numbers(value, radix: 10) { if let group = UInt32(exactly: $0) { read.append(group) } }
                groups = count == read.count ? read : nil
            } else if Self.equal(name, "CapEff") {
                effectiveCapabilities = Self.single(value)
            } else if Self.equal(name, "CapPrm") {
                permittedCapabilities = Self.single(value)
            } else if Self.equal(name, "State") {
                let state = value.first { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }
                isZombie = state == UInt8(ascii: "Z")
            }
        }

        /// A `Uid:` or `Gid:` line's effective id (the second of four), and whether all four (real,
        /// effective, saved, file system) are one.
        private static func ids(_ value: UnsafeBufferPointer<UInt8>) -> (effective: UInt32?, agree: Bool) {
            var (first, second, agree): (UInt64?, UInt64?, Bool) = (nil, nil, true)
            let count = numbers(value, radix: 10) { id in
                if first == nil { first = id } else if second == nil { second = id }
                agree = agree && id == first
            }
            guard let count, count >= 2 else { return (nil, false) }
            return (second.flatMap { UInt32(exactly: $0) }, agree && count == 4)
        }

        /// A field of one hexadecimal number (a capability set); nil when not exactly one.
        private static func single(_ value: UnsafeBufferPointer<UInt8>) -> UInt64? {
            var read: UInt64?
            return numbers(value, radix: 16) { read = $0 } == 1 ? read : nil
        }

        private static func equal(_ bytes: UnsafeBufferPointer<UInt8>, _ name: StaticString) -> Bool {
            bytes.count == name.utf8CodeUnitCount
                && name.withUTF8Buffer { $0.elementsEqual(bytes) }
        }

        /// Each number of a field's value, separated by spaces or tabs, given to `body`; how many,
        /// or nil when a word is not one (or overflows): the whole value is unreadable.
        private static func numbers(
            _ value: UnsafeBufferPointer<UInt8>, radix: UInt64, _ body: (UInt64) -> Void
        ) -> Int? {
            var count = 0
            var current: UInt64?
            for byte in value {
                if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") {
                    if let number = current {
                        body(number)
                        count += 1
                    }
                    current = nil
                    continue
                }
                guard let digit = byte.digitValue(radix: radix) else { return nil }
                let (shifted, overflow) = (current ?? 0).multipliedReportingOverflow(by: radix)
                let (sum, carry) = shifted.addingReportingOverflow(digit)
                guard !overflow, !carry else { return nil }
                current = sum
            }
            if let number = current {
                body(number)
                count += 1
            }
            return count
        }
    }

    static func status(of pid: Int32) -> Status? {
        guard let bytes = try? FileContents.bytes(of: "/proc/\(pid)/status") else { return nil }
        return Status(parsing: bytes)
    }

    /// The auxiliary vector of a program, as the kernel wrote it at execve: (type, value) pairs of
    /// the program's word size, ending with a zero type.
    struct AuxiliaryVector: Equatable {
        /// The raw bytes: two readings are the same program only if these are equal (they hold
        /// addresses that differ from one execve to the next).
        let bytes: [UInt8]

        /// `AT_SECURE`: whether the kernel started the current program in secure-execution mode,
        /// which it does when the program gained privileges by starting (a setuid or setgid file,
        /// or file capabilities beyond the process's own). nil when the vector cannot be parsed or
        /// has no `AT_SECURE`, which every vector the kernel finished writing has: a program being
        /// started has its new credentials before its vector is written (the vector reads as
        /// zeros, then fills in), and such a reading must not pass for an unprivileged program.
        var startedWithPrivileges: Bool? {
            // A 64-bit program's entries are 8-byte words, a 32-bit one's (on a 64-bit kernel) 4.
            for width in [8, 4] {
                if let secure = Self.value(of: 23, in: bytes, width: width) { return secure.map { $0 != 0 } }
            }
            return nil
        }

        /// The value of entry `type` (nil inside when it is absent); nil unless `bytes` parse as a
        /// vector of `width`-byte words in this machine's byte order: small types up to a zero type.
        private static func value(of type: UInt64, in bytes: [UInt8], width: Int) -> UInt64?? {
            guard bytes.count % (2 * width) == 0, !bytes.isEmpty else { return nil }
            func word(_ index: Int) -> UInt64 {
                bytes.withUnsafeBytes { raw in
                    width == 8
                        ? raw.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self)
                        : UInt64(raw.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self))
                }
            }
            var found: UInt64?
            for entry in 0..<(bytes.count / (2 * width)) {
                let entryType = word(2 * entry)
                if entryType == 0 { return .some(found) }
                // The kernel's types are below 64 (AT_MINSIGSTKSZ is 51); anything else is not this width.
                guard entryType < 64 else { return nil }
                if entryType == type { found = word(2 * entry + 1) }
            }
            return nil
        }
    }
}

extension UInt8 {
    /// The digit's value in `radix` (10 or 16, either case), nil for any other byte.
    fileprivate func digitValue(radix: UInt64) -> UInt64? {
        let value: UInt64
        switch self {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): value = UInt64(self - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): value = UInt64(self - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): value = UInt64(self - UInt8(ascii: "A") + 10)
        default: return nil
        }
        return value < radix ? value : nil
    }
}
