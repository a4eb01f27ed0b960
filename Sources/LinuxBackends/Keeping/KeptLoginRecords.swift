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
    /// Where the records are (empty for records that cannot be kept).
    public let directory: String
    private let bootIDPath: String
    private let clock: @Sendable () -> Int64?
    /// Why nothing can be kept, for records with no directory to keep them in.
    private let unusable: String?

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
        self.unusable = nil
    }

    /// Records that keep nothing, for `reason` (a user with no directory of their own to keep
    /// them in): every login asks again, and ``keep(_:for:)`` says why.
    public init(unusable reason: String) {
        self.directory = ""
        self.bootIDPath = ""
        self.clock = { nil }
        self.unusable = reason
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

    /// Whether a login is kept for a key, and for how long; or why not, in words for `--explain`.
    public enum Lookup: Sendable, Equatable {
        /// Kept, for this long still.
        case kept(remaining: Duration)
        /// Not kept, and why.
        case notKept(String)
    }

    /// The scope of a service's client's records, for the client's own `Subject.keepScope`:
    /// never equal to a scope of the service's own process.
    package static func clientScope(_ keepScope: String) -> String { "client " + keepScope }

    /// How long the record for `key` is still good for, or nil when there is none that counts.
    public func remaining(_ key: Key, keep: Duration) -> Duration? {
        if case .kept(let remaining) = lookup(key, keep: keep) { return remaining }
        return nil
    }

    /// Whether the record for `key` counts, or why it does not: missing (with a word on a login
    /// kept for another terminal or session of the user, which is never used here), expired,
    /// from another boot, under other settings, or not to be trusted.
    public func lookup(_ key: Key, keep: Duration) -> Lookup {
        if let unusable { return .notKept(unusable) }
        guard let boot = bootID(), let now = clock() else { return .notKept("no boot id or clock to time records by") }
        let path = path(for: key)
        let bytes: [UInt8]
        do throws(TrustedFile.Refusal) {
            bytes = try TrustedFile.bytes(of: path)
        } catch {
            guard error.isMissing else { return .notKept("the record is not trusted: \(error)") }
            return .notKept(missing(key, boot: boot, now: now))
        }
        guard let record = Record(String(decoding: bytes, as: UTF8.self)) else {
            return .notKept("the record \(path) cannot be read")
        }
        guard record.boot == boot else { return .notKept("it was kept before the machine last started") }
        guard record.uid == key.uid, record.capability == key.capability, record.scope == key.scope else {
            return .notKept("the record \(path) is for another user, capability or terminal")
        }
        guard record.fingerprint == key.fingerprint else {
            return .notKept("it was kept under other settings of the capability (the policy changed since)")
        }
        guard record.written <= now else {
            return .notKept("its record was written later than now (the clock went back)")
        }
        let keepNanoseconds = Self.nanoseconds(keep)
        guard record.expires - record.written <= keepNanoseconds else {
            return .notKept("it was kept for longer than keep allows now")
        }
        guard record.expires > now else {
            return .notKept("the kept login ended \((now - record.expires) / 1_000_000_000) s ago")
        }
        return .kept(remaining: .nanoseconds(record.expires - now))
    }

    /// Why no record is there for `key`: a login kept elsewhere by the same user is named, so
    /// "why does it ask again in this terminal" has its answer.
    private func missing(_ key: Key, boot: String, now: Int64) -> String {
        let none = "no login is kept for this user, terminal and session"
        guard let names = try? TrustedFile.entries(of: directory) else { return none }
        // Bounded: a user with many terminals is described by the first few records.
        for name in names.lazy.filter({ $0.hasPrefix("\(key.uid)-") && !$0.hasSuffix(".new") }).prefix(16) {
            guard let bytes = try? TrustedFile.bytes(of: directory + "/" + name),
                let record = Record(String(decoding: bytes, as: UTF8.self)),
                record.boot == boot, record.uid == key.uid, record.capability == key.capability,
                record.written <= now, record.expires > now
            else { continue }
            return none
                + "; one is kept in another terminal or session (\(record.scope)), never used here (\(key.scope))"
        }
        return none
    }

    /// Writes the record for `key`, good for `keep` from now.
    public func keep(_ key: Key, for keep: Duration) throws(KeptRecordError) {
        if let unusable { throw KeptRecordError(description: unusable) }
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
        makeRoom(for: key, boot: boot, now: now)
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

    /// The most records one user keeps at once (one per capability, terminal and session). A
    /// user who opens session after session cannot fill the shared directory (root's, under
    /// /run, for every client of capctld): past this, the records that no longer count go first,
    /// then those that end soonest.
    public static let maximumPerUser = 32

    /// Removes records of `key`'s user until one more fits within ``maximumPerUser``.
    private func makeRoom(for key: Key, boot: String, now: Int64) {
        guard let names = try? TrustedFile.entries(of: directory) else { return }
        let own = path(for: key)
        var records: [(path: String, expires: Int64)] = []
        for name in names where name.hasPrefix("\(key.uid)-") && !name.hasSuffix(".new") {
            let path = directory + "/" + name
            guard path != own else { continue }
            guard let bytes = try? TrustedFile.bytes(of: path),
                let record = Record(String(decoding: bytes, as: UTF8.self)),
                record.boot == boot, record.expires > now
            else {
                // Ended, of another boot, or unreadable: counts for no one.
                unlink(path)
                continue
            }
            records.append((path, record.expires))
        }
        guard records.count >= Self.maximumPerUser else { return }
        for record in records.sorted(by: { $0.expires < $1.expires }).prefix(records.count - Self.maximumPerUser + 1) {
            unlink(record.path)
        }
    }

    /// The record for `key`, when it counts now, written again to be good for `keep` from now
    /// (`capctl authorize --extend`, as `sudo -v`); nil when none counts (the caller asks again).
    public func extend(_ key: Key, for keep: Duration) throws(KeptRecordError) -> Duration? {
        guard remaining(key, keep: keep) != nil else { return nil }
        try self.keep(key, for: keep)
        return keep
    }

    /// Removes every record of `uid` (`capctl authorize --forget-all`, as `sudo -K`); how many.
    @discardableResult
    public func forget(uid: UInt32) -> Int {
        forget(uid: uid) { _ in true }
    }

    /// Removes the records of `uid` kept for `scope` alone (`capctl authorize --forget`, as
    /// `sudo -k`): the user's other terminals and sessions keep theirs. How many.
    @discardableResult
    public func forget(uid: UInt32, scope: String) -> Int {
        forget(uid: uid) { path in
            // A record that cannot be read is no login anyone keeps: removing it costs nothing.
            guard let bytes = try? TrustedFile.bytes(of: path),
                let record = Record(String(decoding: bytes, as: UTF8.self))
            else { return true }
            return record.scope == scope
        }
    }

    private func forget(uid: UInt32, where matches: (String) -> Bool) -> Int {
        guard unusable == nil, let names = try? TrustedFile.entries(of: directory) else { return 0 }
        var removed = 0
        for name in names where name.hasPrefix("\(uid)-") {
            let path = directory + "/" + name
            if matches(path), unlink(path) == 0 { removed += 1 }
        }
        return removed
    }

    private func path(for key: Key) -> String {
        directory + "/\(key.uid)-" + Self.hash(key.capability + "\n" + key.scope)
    }

    /// The directory, made 0700 when missing (the directories above it 0755, so a socket beside
    /// it stays reachable), whatever the umask, and trusted (owned by root or this user, writable
    /// by no one else).
    private func prepareDirectory() throws(TrustedFile.Refusal) {
        var missing: [String] = []
        var path = directory
        while !path.isEmpty, !TrustedFile.exists(path) {
            missing.append(path)
            path = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        }
        for path in missing.reversed() { Self.makeDirectory(path, mode: path == directory ? 0o700 : 0o755) }
        _ = try TrustedFile.entries(of: directory)
    }

    /// A directory made with exactly `mode`: a strict umask (UMask=0077) must not leave it
    /// other than the records need. The mode is set through the directory itself (O_NOFOLLOW),
    /// never through a link put in its place.
    private static func makeDirectory(_ path: String, mode: mode_t) {
        guard mkdir(path, mode) == 0,
            let made = try? FileDescriptor.open(path, .readOnly, options: [.directory, .noFollow, .closeOnExec])
        else { return }
        _ = try? made.closeAfter { fchmod(made.rawValue, mode) }
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
