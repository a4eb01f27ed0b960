import CLinuxSupport
import Capabilities
import Glibc
import Locking
import TestSupport
import Testing

@testable import LinuxPolicy

/// Where a record goes, and that one nobody received is never counted as delivered. The logs are
/// datagram sockets of the test's own at the paths the trail is given, read as journald and a
/// syslog daemon would.
@Suite
struct AuditTrailTests {
    /// A bound datagram socket at `path`: a log's receiving end.
    private final class Receiver {
        let descriptor: Int32
        init(_ path: String) throws {
            descriptor = clinux_unix_socket(path, Int32(SOCK_DGRAM.rawValue), CLINUX_UNIX_BIND)
            try #require(descriptor >= 0)
        }
        deinit { close(descriptor) }

        /// The next datagram, or nil when none is waiting.
        func next() -> [UInt8]? {
            var buffer = [UInt8](repeating: 0, count: 65536)
            let count = buffer.withUnsafeMutableBytes {
                recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT))
            }
            return count < 0 ? nil : Array(buffer[..<count])
        }

        /// Fills the receiver's queue from a socket of the test's own, without waiting.
        func fill() -> Int32 {
            let filler = clinux_unix_socket(Self.path(of: descriptor), Int32(SOCK_DGRAM.rawValue), CLINUX_UNIX_CONNECT)
            let datagram = [UInt8](repeating: 0x61, count: 512)
            while datagram.withUnsafeBytes({ send(filler, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }) > 0 {}
            return filler
        }

        static func path(of descriptor: Int32) -> String {
            var address = sockaddr_un()
            var length = socklen_t(MemoryLayout<sockaddr_un>.size)
            _ = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
            }
            return withUnsafeBytes(of: address.sun_path) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        }
    }

    private let record = AuditRecord(
        action: "run", gate: "open", outcome: .fails, reasons: "line one\nCAPCTL_OUTCOME=authorized")

    @Test("no journal listening: the record goes to the system log, and counts as delivered only there")
    func noJournalFallsBackToSyslog() throws {
        let directory = try TemporaryDirectory()
        let syslog = try Receiver(directory.path + "/log")
        let trail = AuditTrail(
            level: .all, journalPath: directory.path + "/no-journal", syslogPath: directory.path + "/log",
            identifier: "test")
        trail.record(record)
        let line = String(decoding: try #require(syslog.next()), as: UTF8.self)
        #expect(line.hasPrefix("<84>test["), "authpriv.warning: \(line)")
        #expect(line.contains(#"CAPCTL_REASONS="line one\nCAPCTL_OUTCOME=authorized""#), "\(line)")
        #expect(trail.failedWrites == 0)
    }

    @Test("neither a journal nor a system log: the record is counted as not delivered")
    func noReceiverAtAll() throws {
        let directory = try TemporaryDirectory()
        let trail = AuditTrail(
            level: .all, journalPath: directory.path + "/no-journal", syslogPath: directory.path + "/no-log",
            identifier: "test")
        trail.record(record)
        trail.record(record)
        #expect(trail.failedWrites == 2)
        // A socket file nobody reads is no receiver either.
        let stale = directory.path + "/stale"
        do { _ = try Receiver(stale) }
        let staleTrail = AuditTrail(level: .all, journalPath: stale, syslogPath: stale, identifier: "test")
        staleTrail.record(record)
        #expect(staleTrail.failedWrites == 1)
    }

    @Test("the journal takes each part as a field; a value with a line break is sent as the protocol's binary form")
    func journalEntry() throws {
        let directory = try TemporaryDirectory()
        let journal = try Receiver(directory.path + "/journal")
        let syslog = try Receiver(directory.path + "/log")
        let trail = AuditTrail(
            level: .all, journalPath: directory.path + "/journal", syslogPath: directory.path + "/log",
            identifier: "test")
        trail.record(record)
        let entry = try #require(journal.next())
        #expect(syslog.next() == nil, "delivered once, to the journal")
        let fields = try Self.decode(entry)
        #expect(fields["CAPCTL_REASONS"] == "line one\nCAPCTL_OUTCOME=authorized", "\(fields)")
        #expect(
            fields["CAPCTL_OUTCOME"] == "fails" && fields["PRIORITY"] == "4" && fields["SYSLOG_IDENTIFIER"] == "test")
        #expect(fields["MESSAGE_ID"] == AuditTrail.journalMessageID)
        #expect(trail.failedWrites == 0)
    }

    @Test("a full journal is waited for a bounded time, then the record is counted as not delivered")
    func fullJournal() throws {
        let directory = try TemporaryDirectory()
        let journal = try Receiver(directory.path + "/journal")
        let syslog = try Receiver(directory.path + "/log")
        let filler = journal.fill()
        defer { close(filler) }
        let trail = AuditTrail(
            level: .all, journalPath: directory.path + "/journal", syslogPath: directory.path + "/log",
            identifier: "test")
        trail.record(record)
        #expect(trail.failedWrites == 1)
        #expect(syslog.next() == nil, "where journald runs, /dev/log is its own: not tried again")
    }

    private static func decision(uid: UInt32, _ outcome: AuditRecord.Outcome) -> AuditRecord {
        AuditRecord(
            action: "check", gate: "g", outcome: outcome,
            subject: .user(SubjectUser(uid: uid, gid: uid, supplementaryGroups: [], name: nil)))
    }

    @Test("each user writes its share of an interval; the rest is counted, and one summary says it, at flush")
    func boundedPerUser() throws {
        let directory = try TemporaryDirectory()
        let syslog = try Receiver(directory.path + "/log")
        let trail = AuditTrail(
            level: .all, journalPath: nil, syslogPath: directory.path + "/log", identifier: "test",
            limitPerUser: AuditUserLimit(records: 3, per: .seconds(30)))
        for index in 0..<10 { trail.record(Self.decision(uid: 65534, index == 9 ? .holds : .fails)) }
        trail.record(Self.decision(uid: 4321, .fails))
        var lines: [String] = []
        while let datagram = syslog.next() { lines.append(String(decoding: datagram, as: UTF8.self)) }
        #expect(lines.filter { $0.contains(#"CAPCTL_UID="65534""#) }.count == 3, "\(lines)")
        #expect(lines.filter { $0.contains(#"CAPCTL_UID="4321""#) }.count == 1, "another user's share is its own")
        trail.flush()
        #expect(syslog.next() == nil, "the interval has not ended: nothing to summarize yet")
        trail.flush(all: true)
        let summary = String(decoding: try #require(syslog.next()), as: UTF8.self)
        #expect(summary.contains(#"CAPCTL_ACTION="summary""#) && summary.contains(#"CAPCTL_UID="65534""#))
        #expect(summary.contains(#"CAPCTL_OUTCOME="fails""#), "the most closed of them: \(summary)")
        #expect(
            summary.contains(
                #"CAPCTL_REASONS="7 more decision(s) for uid 65534 in 30 s not recorded one by one (holds 1, fails 6): past its 3 records per 30 s""#
            ), "\(summary)")
        #expect(syslog.next() == nil, "uid 4321 stayed within its share: no summary")
    }

    @Test("decision ids: 32 lowercase hex digits, this process's random half then its count, never twice")
    func decisionIDs() throws {
        let ids = (0..<10_000).map { _ in AuditRecord.newDecisionID() }
        #expect(Set(ids).count == ids.count)
        let hex = Set("0123456789abcdef")
        #expect(ids.allSatisfy { $0.utf8.count == 32 && $0.allSatisfy(hex.contains) })
        #expect(Set(ids.map { $0.prefix(16) }).count == 1, "one prefix per process")
        let counts = try ids.map { try #require(UInt64($0.suffix(16), radix: 16)) }
        #expect(zip(counts, counts.dropFirst()).allSatisfy { $1 > $0 }, "a count, in order on one thread")
    }

    @Test("an interval that ended is summarized before the user's next record, and the user has a new share")
    func intervalsRollOver() {
        var windows = AuditUserWindows(limit: AuditUserLimit(records: 2, per: .seconds(30)))
        let start = ContinuousClock.now
        let record = Self.decision(uid: 7, .undecided)
        func admit(at time: ContinuousClock.Instant) -> (write: Bool, summary: AuditRecord?) {
            windows.admit(outcome: record.outcome, subject: record.subject, uid: 7, at: time)
        }
        #expect(admit(at: start).write)
        #expect(admit(at: start + .seconds(1)).write)
        #expect(!admit(at: start + .seconds(29)).write)
        let next = admit(at: start + .seconds(30))
        #expect(next.write, "a new interval")
        #expect(
            next.summary?.reasons.hasPrefix("1 more decision(s) for uid 7") == true,
            "\(String(describing: next.summary))")
        #expect(next.summary?.outcome == .undecided)
        #expect(windows.due(at: start + .seconds(59), all: false).isEmpty, "nothing counted in the new one")
    }

    @Test("past a user's share a decision is counted by its outcome, and its record is never made")
    func recordsPastTheShareNotMade() throws {
        let directory = try TemporaryDirectory()
        let trail = AuditTrail(
            level: .all, journalPath: nil, syslogPath: directory.path + "/no-log", identifier: "test",
            limitPerUser: AuditUserLimit(records: 2, per: .seconds(3600)))
        let made = Lock(0)
        let record = Self.decision(uid: 7, .fails)
        for _ in 0..<5 {
            trail.record(outcome: record.outcome, subject: record.subject) {
                made.withLock { $0 += 1 }
                return record
            }
        }
        #expect(made.withLock { $0 } == 2, "the user's two records, no more")
        #expect(trail.failedWrites == 2, "nothing listens: the two written are lost, the rest only counted")
    }

    @Test("lost records are said: the first at once, later ones at most once a minute and at the last flush")
    func lostRecordsSaid() throws {
        let directory = try TemporaryDirectory()
        let said = Lock<[String]>([])
        let trail = AuditTrail(
            level: .all, journalPath: nil, syslogPath: directory.path + "/no-log", identifier: "test",
            onLostRecords: { message in said.withLock { $0.append(message) } })
        #expect(!trail.record(record))
        #expect(!trail.record(record))
        #expect(!trail.record(record))
        trail.flush()
        #expect(said.withLock { $0 }.count == 1, "within the minute: once")
        #expect(said.withLock { $0 }.first?.hasPrefix("1 audit record(s) reached no log") == true)
        trail.flush(all: true)
        let messages = said.withLock { $0 }
        #expect(messages.count == 2 && messages.last?.hasPrefix("2 audit record(s)") == true, "\(messages)")
        #expect(messages.last?.hasSuffix("; 3 since start") == true)
        #expect(trail.failedWrites == 3)
        trail.flush(all: true)
        #expect(said.withLock { $0 }.count == 2, "nothing more to say")
    }

    /// The native protocol's fields: `KEY=value\n`, or `KEY\n`, a 64-bit little-endian length,
    /// the value and `\n`.
    static func decode(_ entry: [UInt8]) throws -> [String: String] {
        var fields: [String: String] = [:]
        var index = 0
        while index < entry.count {
            let keyEnd = try #require(entry[index...].firstIndex { $0 == UInt8(ascii: "=") || $0 == 10 })
            let key = String(decoding: entry[index..<keyEnd], as: UTF8.self)
            if entry[keyEnd] == UInt8(ascii: "=") {
                let end = try #require(entry[keyEnd...].firstIndex(of: 10))
                fields[key] = String(decoding: entry[(keyEnd + 1)..<end], as: UTF8.self)
                index = end + 1
            } else {
                let lengthBytes = entry[(keyEnd + 1)..<(keyEnd + 9)]
                let length = Int(lengthBytes.reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
                let start = keyEnd + 9
                fields[key] = String(decoding: entry[start..<(start + length)], as: UTF8.self)
                try #require(entry[start + length] == 10)
                index = start + length + 1
            }
        }
        return fields
    }
}
