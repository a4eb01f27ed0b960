import Foundation
import Glibc
import LinuxBackends
import Locking
import TestSupport
import Testing

/// Logins kept across processes: what a record is good for, and everything that voids it.
@Suite
struct KeptLoginRecordsTests {
    /// Records in a directory of the test's, on a boot id and a clock the test sets.
    private final class Fixture: Sendable {
        let directory: TemporaryDirectory
        let now = Lock<Int64>(1_000_000_000_000)
        var records: KeptLoginRecords {
            KeptLoginRecords(
                directory: directory.path + "/keep", bootIDPath: directory.path + "/boot_id",
                clock: { [self] in now.withLock { $0 } })
        }

        init(boot: String = "boot-a") throws {
            directory = try TemporaryDirectory(prefix: "kept-records")
            try directory.write(boot + "\n", to: "boot_id")
        }

        func advance(seconds: Int64) { now.withLock { $0 += seconds * 1_000_000_000 } }
        func setBoot(_ boot: String) throws { try directory.write(boot + "\n", to: "boot_id") }
    }

    private let key = KeptLoginRecords.Key(
        uid: 1000, capability: "pam:admin", fingerprint: "v1", scope: "uid=1000 tty=pts/1")

    @Test("a record is good for its keep from when it was written, then not")
    func lifetime() throws {
        let fixture = try Fixture()
        let records = fixture.records
        #expect(records.remaining(key, keep: .seconds(300)) == nil, "nothing kept yet")
        try records.keep(key, for: .seconds(300))
        #expect(records.remaining(key, keep: .seconds(300)) == .seconds(300))
        fixture.advance(seconds: 100)
        #expect(records.remaining(key, keep: .seconds(300)) == .seconds(200))
        fixture.advance(seconds: 200)
        #expect(records.remaining(key, keep: .seconds(300)) == nil, "expired")
        // The directory was made for this user alone.
        var info = stat()
        #expect(stat(fixture.directory.path + "/keep", &info) == 0 && info.st_mode & 0o777 == 0o700)
    }

    @Test("another user, capability, setting or scope, a shorter keep, another boot, a clock set back: not kept")
    func whatVoidsARecord() throws {
        let fixture = try Fixture()
        let records = fixture.records
        try records.keep(key, for: .seconds(300))
        let others = [
            KeptLoginRecords.Key(uid: 1001, capability: key.capability, fingerprint: key.fingerprint, scope: key.scope),
            KeptLoginRecords.Key(uid: key.uid, capability: "pam:other", fingerprint: key.fingerprint, scope: key.scope),
            KeptLoginRecords.Key(uid: key.uid, capability: key.capability, fingerprint: "v2", scope: key.scope),
            KeptLoginRecords.Key(
                uid: key.uid, capability: key.capability, fingerprint: key.fingerprint, scope: "uid=1000 tty=pts/2"),
        ]
        for other in others { #expect(records.remaining(other, keep: .seconds(300)) == nil, "\(other)") }
        // The policy now keeps logins for less: a longer record does not count.
        #expect(records.remaining(key, keep: .seconds(60)) == nil)
        // A clock set back before the record was written: it cannot be timed.
        fixture.now.withLock { $0 -= 1_000_000_000 }
        #expect(records.remaining(key, keep: .seconds(300)) == nil)
        fixture.now.withLock { $0 += 1_000_000_000 }
        #expect(records.remaining(key, keep: .seconds(300)) != nil)
        try fixture.setBoot("boot-b")
        #expect(records.remaining(key, keep: .seconds(300)) == nil, "written on another boot")
    }

    @Test(
        "a record others could have written is not believed, and a directory others may write takes none",
        .enabled(if: geteuid() == 0, "files of other owners need root to make"))
    func untrustedRecords() throws {
        let fixture = try Fixture()
        let records = fixture.records
        try records.keep(key, for: .seconds(300))
        let keep = fixture.directory.path + "/keep"
        let names = try FileManager.default.contentsOfDirectory(atPath: keep)
        try #require(names.count == 1 && names[0].hasPrefix("1000-"))
        let record = keep + "/" + names[0]
        chown(record, 65534, 65534)
        #expect(records.remaining(key, keep: .seconds(300)) == nil, "owned by another user")
        chown(record, 0, 0)
        chmod(record, 0o666)
        #expect(records.remaining(key, keep: .seconds(300)) == nil, "writable by others")
        chmod(record, 0o600)
        #expect(records.remaining(key, keep: .seconds(300)) != nil)
        chmod(keep, 0o777)
        #expect(records.remaining(key, keep: .seconds(300)) == nil, "in a directory others may write")
        #expect(throws: KeptRecordError.self) { try records.keep(key, for: .seconds(300)) }
    }

    @Test("one user keeps at most maximumPerUser records: ended ones go first, then those ending soonest; others' stay")
    func boundedPerUser() throws {
        let fixture = try Fixture()
        let records = fixture.records
        let limit = KeptLoginRecords.maximumPerUser
        func scoped(_ uid: UInt32, _ index: Int) -> KeptLoginRecords.Key {
            KeptLoginRecords.Key(uid: uid, capability: "pam:admin", fingerprint: "v1", scope: "session=\(index)")
        }
        func files(of uid: UInt32) throws -> Int {
            try FileManager.default.contentsOfDirectory(atPath: fixture.directory.path + "/keep")
                .filter { $0.hasPrefix("\(uid)-") }.count
        }
        try records.keep(scoped(2000, 0), for: .seconds(600))
        // Two that end at once, then a session after session, each a second later than the last.
        try records.keep(scoped(1000, -1), for: .seconds(1))
        try records.keep(scoped(1000, -2), for: .seconds(1))
        fixture.advance(seconds: 2)
        for index in 0..<(limit + 8) {
            try records.keep(scoped(1000, index), for: .seconds(600))
            fixture.advance(seconds: 1)
        }
        #expect(try files(of: 1000) == limit)
        // The newest are kept, the oldest that still counted went; another user's is untouched.
        #expect(records.remaining(scoped(1000, limit + 7), keep: .seconds(600)) != nil)
        #expect(records.remaining(scoped(1000, 8), keep: .seconds(600)) != nil)
        #expect(records.remaining(scoped(1000, 7), keep: .seconds(600)) == nil)
        #expect(records.remaining(scoped(2000, 0), keep: .seconds(600)) != nil)
        #expect(try files(of: 2000) == 1)
        // Writing a scope's record again does not push out another.
        try records.keep(scoped(1000, limit + 7), for: .seconds(600))
        #expect(records.remaining(scoped(1000, 8), keep: .seconds(600)) != nil)
    }

    @Test("forget removes one user's records, and only theirs")
    func forget() throws {
        let fixture = try Fixture()
        let records = fixture.records
        let other = KeptLoginRecords.Key(uid: 1001, capability: key.capability, fingerprint: "v1", scope: "uid=1001")
        try records.keep(key, for: .seconds(300))
        try records.keep(other, for: .seconds(300))
        #expect(records.forget(uid: 1000) == 1)
        #expect(records.remaining(key, keep: .seconds(300)) == nil)
        #expect(records.remaining(other, keep: .seconds(300)) != nil)
        // No record of uid 10 is taken for uid 100's (the names start "UID-").
        #expect(records.forget(uid: 100) == 0)
    }

    @Test("why a login was not kept, in words: none here (and one elsewhere), ended, other settings, another boot")
    func reasons() throws {
        let fixture = try Fixture()
        let records = fixture.records
        func reason(_ key: KeptLoginRecords.Key) -> String {
            if case .notKept(let reason) = records.lookup(key, keep: .seconds(300)) { return reason }
            return "kept"
        }
        #expect(reason(key) == "no login is kept for this user, terminal and session")
        try records.keep(key, for: .seconds(300))
        let otherTerminal = KeptLoginRecords.Key(
            uid: key.uid, capability: key.capability, fingerprint: key.fingerprint, scope: "uid=1000 tty=pts/2")
        #expect(
            reason(otherTerminal)
                == "no login is kept for this user, terminal and session; one is kept in another terminal or session "
                + "(uid=1000 tty=pts/1), never used here (uid=1000 tty=pts/2)")
        let newSettings = KeptLoginRecords.Key(
            uid: key.uid, capability: key.capability, fingerprint: "v2", scope: key.scope)
        #expect(reason(newSettings).contains("other settings of the capability"))
        fixture.advance(seconds: 340)
        #expect(reason(key) == "the kept login ended 40 s ago")
        try fixture.setBoot("boot-b")
        #expect(reason(key) == "it was kept before the machine last started")
        #expect(
            KeptLoginRecords(unusable: "nowhere to keep it").lookup(key, keep: .seconds(1))
                == .notKept("nowhere to keep it"))
    }

    @Test("forget for one scope leaves the user's other terminals; extend renews only a login that still counts")
    func forgetScopeAndExtend() throws {
        let fixture = try Fixture()
        let records = fixture.records
        let otherTerminal = KeptLoginRecords.Key(
            uid: key.uid, capability: key.capability, fingerprint: key.fingerprint, scope: "uid=1000 tty=pts/2")
        try records.keep(key, for: .seconds(300))
        try records.keep(otherTerminal, for: .seconds(300))
        #expect(records.forget(uid: 1000, scope: key.scope) == 1)
        #expect(records.remaining(key, keep: .seconds(300)) == nil)
        #expect(records.remaining(otherTerminal, keep: .seconds(300)) != nil)
        fixture.advance(seconds: 200)
        #expect(try records.extend(otherTerminal, for: .seconds(300)) == .seconds(300))
        #expect(records.remaining(otherTerminal, keep: .seconds(300)) == .seconds(300))
        #expect(try records.extend(key, for: .seconds(300)) == nil, "nothing kept: nothing extended")
        fixture.advance(seconds: 301)
        #expect(try records.extend(otherTerminal, for: .seconds(300)) == nil, "an ended login is not brought back")
    }

    @Test(
        "records go to the user's own runtime directory, else /run/user/UID, else the home; never another's",
        .enabled(if: geteuid() == 0, "directories of other owners need root to make"))
    func location() throws {
        let directory = try TemporaryDirectory(prefix: "kept-location")
        let own = try directory.directory("own", mode: 0o700)
        let roots = try directory.directory("roots", mode: 0o700)
        let open = try directory.directory("open", mode: 0o777)
        let runUser = try directory.directory("run-user")
        let home = try directory.directory("home", mode: 0o755)
        for path in [own, open, home] { chown(path, 1000, 1000) }
        chmod(open, 0o777)
        symlink(own, directory.path + "/link")
        func choose(_ runtime: String?, home: String?) -> KeptRecordsLocation {
            KeptRecordsLocation.choose(uid: 1000, runtimeDirectory: runtime, home: home, userRuntimeRoot: runUser)
        }
        #expect(choose(own, home: home) == .directory(own + "/capctl/keep"))
        // su without -l: the first user's runtime directory is passed over.
        #expect(choose(roots, home: home) == .directory(home + "/.cache/capctl/keep"))
        #expect(choose(open, home: home) == .directory(home + "/.cache/capctl/keep"))
        #expect(choose(directory.path + "/link", home: home) == .directory(home + "/.cache/capctl/keep"))
        #expect(choose("relative", home: home) == .directory(home + "/.cache/capctl/keep"))
        let mine = try directory.directory("run-user/1000", mode: 0o700)
        chown(mine, 1000, 1000)
        #expect(choose(nil, home: home) == .directory(mine + "/capctl/keep"))
        rmdir(mine)
        #expect(
            choose(roots, home: roots)
                == .none(
                    "no directory of uid 1000's own to keep it in (XDG_RUNTIME_DIR \(roots) belongs to uid 0; "
                        + "the runtime directory \(runUser)/1000 does not exist; the home directory \(roots) belongs to uid 0)"
                ))
        #expect(choose(nil, home: nil) != .directory(""))
    }
}
