import ConfigurationFiles
import Glibc
import Plumbing
import SystemPackage

/// Why a record could not be written.
public struct KeptRecordError: Error, Sendable, CustomStringConvertible {
    public let description: String
}

/// Successful logins kept across processes, as sudo keeps its timestamp records: one small file
/// per user, capability and scope (the login session and terminal, or the parent process without
/// one, as sudo's `timestamp_type` tty), in a directory only its owner may write (`/run/capctl/keep`, root's, 0700), written
/// atomically and read through the trusted reader.
///
/// A record holds the boot id (`/proc/sys/kernel/random/boot_id`) and `CLOCK_BOOTTIME` times,
/// so a reboot, a change of the wall clock or a suspend cannot stretch it; one from the future,
/// from another boot, for another subject or scope, or written under other capability settings
/// is void. A record a trusted user did not write (owned by anyone else, or in a directory others
/// may write) is never read.
///
/// ```swift
/// let records = KeptLoginRecords(directory: KeptLoginRecords.systemDirectory)
/// let removed = records.forget(uid: 1000)  // as `sudo -K`: the user's kept logins end now
/// print(removed)
/// ```
public struct KeptLoginRecords: Sendable {
    /// Where the records are.
    public let directory: String
    private let bootIDPath: String
    private let clock: @Sendable () -> Int64?

    /// Root's records.
    public static let systemDirectory = "/run/capctl/keep"

    /// Records in `directory`; the boot id and the clock may be replaced for tests.
    public init(
        directory: String, bootIDPath: String = "/proc/sys/kernel/random/boot_id",
        clock: @escaping @Sendable () -> Int64? = KeptLoginRecords.bootTime
    ) {
        self.directory = directory
        self.bootIDPath = bootIDPath
        self.clock = clock
    }

    /// `CLOCK_BOOTTIME` in nanoseconds (suspend counted), or nil when it cannot be read.
    public static let bootTime: @Sendable () -> Int64? = {
        var now = timespec()
        guard clock_gettime(CLOCK_BOOTTIME, &now) == 0 else { return nil }
        return Int64(now.tv_sec) &* 1_000_000_000 &+ Int64(now.tv_nsec)
    }

    /// What a record is for.
    ///
    /// ```swift
    /// let records = KeptLoginRecords(directory: "/run/user/1000/myservice/keep")
    /// if let scope = KeptLoginRecords.currentScope() {
    ///     let key = KeptLoginRecords.Key(uid: 1000, capability: pamAdmin.name, fingerprint: "v1", scope: scope)
    ///     print(records.remaining(key, keep: .seconds(300)) ?? .zero)
    /// }
    /// ```
    public struct Key: Sendable, Equatable {
        /// The user who authenticated.
        public let uid: UInt32
        /// The capability's name.
        public let capability: String
        /// The capability's settings, so a changed policy voids the record.
        public let fingerprint: String
        /// The terminal and login session the login was made in.
        public let scope: String

        /// A record's key.
        /// - Parameters:
        ///   - uid: The user who logged in.
        ///   - capability: The capability's name.
        ///   - fingerprint: The capability's settings.
        ///   - scope: The terminal and login session the login was made in.
        public init(uid: UInt32, capability: String, fingerprint: String, scope: String) {
            self.uid = uid
            self.capability = capability
            self.fingerprint = fingerprint
            self.scope = scope
        }
    }

    /// This process's scope, by the rule a service's clients are scoped by too (`KeepScope`): its
    /// audit login session; else its session (id and leader's start time, so a reused id is
    /// another scope) and controlling terminal, with the parent process (pid and start time)
    /// where there is no terminal or the leader is out of sight, as sudo falls back to `ppid`.
    /// Nil when none can be read, so nothing is kept.
    public static func currentScope() -> String? {
        KeepScope.current()
    }

    /// How long the record for `key` is still good for, or nil when there is none that counts.
    public func remaining(_ key: Key, keep: Duration) -> Duration? {
        guard let boot = bootID(), let now = clock(),
            let bytes = try? TrustedFile.bytes(of: path(for: key)),
            let record = Record(String(decoding: bytes, as: UTF8.self))
        else { return nil }
        let keepNanoseconds = Self.nanoseconds(keep)
        guard record.boot == boot, record.uid == key.uid, record.capability == key.capability,
            record.fingerprint == key.fingerprint, record.scope == key.scope, record.written <= now,
            record.expires > now, record.expires - record.written <= keepNanoseconds
        else { return nil }
        return .nanoseconds(record.expires - now)
    }

    /// Writes the record for `key`, good for `keep` from now.
    public func keep(_ key: Key, for keep: Duration) throws(KeptRecordError) {
        guard let boot = bootID(), let now = clock() else {
            throw KeptRecordError(description: "no boot id or clock to time the record by")
        }
        do throws(TrustedFile.Refusal) {
            try prepareDirectory()
        } catch {
            throw KeptRecordError(description: "\(error.path): \(error.reason)")
        }
        let record = Record(
            boot: boot, uid: key.uid, capability: key.capability, fingerprint: key.fingerprint, scope: key.scope,
            written: now, expires: now &+ Self.nanoseconds(keep))
        let final = path(for: key)
        let temporary = final + ".\(getpid()).new"
        let descriptor: FileDescriptor
        do {
            descriptor = try FileDescriptor.open(
                temporary, .writeOnly, options: [.create, .exclusiveCreate, .noFollow, .closeOnExec],
                permissions: [.ownerReadWrite])
        } catch {
            throw KeptRecordError(description: "\(temporary): \(error)")
        }
        let written: Void? = try? descriptor.closeAfter {
            _ = try descriptor.writeAll(record.text.utf8)
            guard fsync(descriptor.rawValue) == 0 else { throw Errno.current }
        }
        guard written != nil, rename(temporary, final) == 0 else {
            unlink(temporary)
            throw KeptRecordError(description: "\(final): cannot write the record")
        }
    }

    /// Removes every record of `uid` (`capctl authorize --forget`, as `sudo -k`); how many.
    @discardableResult
    public func forget(uid: UInt32) -> Int {
        guard let names = try? TrustedFile.entries(of: directory) else { return 0 }
        var removed = 0
        for name in names where name.hasPrefix("\(uid)-") {
            if unlink(directory + "/" + name) == 0 { removed += 1 }
        }
        return removed
    }

    private func path(for key: Key) -> String {
        directory + "/\(key.uid)-" + Self.hash(key.capability + "\n" + key.scope)
    }

    /// The directory, made 0700 when missing, and trusted (owned by root or this user, writable by no one else).
    private func prepareDirectory() throws(TrustedFile.Refusal) {
        if !TrustedFile.exists(directory) {
            let parent = String(directory[..<(directory.lastIndex(of: "/") ?? directory.startIndex)])
            if !parent.isEmpty, !TrustedFile.exists(parent) { mkdir(parent, 0o755) }
            mkdir(directory, 0o700)
        }
        _ = try TrustedFile.entries(of: directory)
    }

    private func bootID() -> String? {
        guard let bytes = try? FileContents.bytes(of: bootIDPath) else { return nil }
        let text = String(String(decoding: bytes, as: UTF8.self).filter { !$0.isWhitespace })
        return text.isEmpty ? nil : text
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        let (product, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return seconds < 0 ? 0 : Int64.max }
        return product &+ attoseconds / 1_000_000_000
    }

    /// FNV-1a, 64 bits, as hexadecimal: a file name from the capability and the scope.
    private static func hash(_ text: String) -> String {
        var value: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            value ^= UInt64(byte)
            value = value &* 0x0000_0100_0000_01b3
        }
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// A record's lines: `key=value`, one each.
    struct Record: Equatable {
        let boot: String
        let uid: UInt32
        let capability: String
        let fingerprint: String
        let scope: String
        let written: Int64
        let expires: Int64

        init(
            boot: String, uid: UInt32, capability: String, fingerprint: String, scope: String, written: Int64,
            expires: Int64
        ) {
            self.boot = boot
            self.uid = uid
            self.capability = capability
            self.fingerprint = fingerprint
            self.scope = scope
            self.written = written
            self.expires = expires
        }

        init?(_ text: String) {
            var fields: [String: String] = [:]
            for line in text.split(separator: "\n") {
                guard let equals = line.firstIndex(of: "=") else { return nil }
                fields[String(line[..<equals])] = String(line[line.index(after: equals)...])
            }
            guard fields["version"] == "1", let boot = fields["boot"], let uid = fields["uid"].flatMap(UInt32.init),
                let capability = fields["capability"], let fingerprint = fields["fingerprint"],
                let scope = fields["scope"], let written = fields["written"].flatMap(Int64.init),
                let expires = fields["expires"].flatMap(Int64.init)
            else { return nil }
            self.init(
                boot: boot, uid: uid, capability: capability, fingerprint: fingerprint, scope: scope, written: written,
                expires: expires)
        }

        var text: String {
            // Values are single lines: names and settings never hold a newline here.
            func line(_ value: String) -> String { value.replacing("\n", with: " ") }
            return """
                version=1
                boot=\(line(boot))
                uid=\(uid)
                capability=\(line(capability))
                fingerprint=\(line(fingerprint))
                scope=\(line(scope))
                written=\(written)
                expires=\(expires)

                """
        }
    }
}
