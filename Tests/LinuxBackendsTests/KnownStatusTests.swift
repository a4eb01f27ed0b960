import Capabilities
import Glibc
import LinuxBackends
import Plumbing
import Testing

/// `knownStatus()` lets a gate decide on a queue's worker without a task, so it must not wait on
/// anything: no file system, no user or group database (which may be a directory server), no netlink.
@Suite("Statuses known without I/O")
struct KnownStatusTests {
    @Test(
        "file access, the network path and PAM logins read files or sockets: only status() answers (on an ordinary thread)"
    )
    func statusesThatNeedIO() throws {
        #expect(try FileAccess("/", access: [.read], kind: .directory).knownStatus() == nil)
        #expect(NetworkPath().knownStatus() == nil)
        #expect(try PAMLogin(service: "login", user: "root").knownStatus() == nil)
    }

    @Test("file access answers at once only on a thread a service lets block for its client, as status() answers")
    func fileAccessWhereTheThreadMayBlock() async throws {
        let root = try FileAccess("/", access: [.read], kind: .directory)
        #expect(root.knownStatus() == nil)
        let known = try #require(TaskWait.blockingAllowed { root.knownStatus() })
        let status = await root.resolveStatus()
        #expect(known.kind == .authorized && known.kind == status.kind && known.reason == status.reason, "\(known)")
        #expect(root.knownStatus() == nil, "the thread's mark ends with the call")
    }

    @Test("a resolved user or group is decided from ids alone, as status() decides it")
    func identityFromIDs() async throws {
        let group = try MemberOfGroup(String(getegid()))
        let known = try #require(group.knownStatus())
        #expect(known.kind == .authorized)
        #expect(await group.resolveStatus().kind == known.kind)

        let otherGroup = try MemberOfGroup(String(getegid() &+ 54_321))
        // Not held: its reason names the groups, which status() reads from the database (or
        // finds read lately, by whichever test came first in this process).
        let denied = await otherGroup.resolveStatus()
        #expect(denied.kind == .denied)
        // The reentrant lookup: tests run side by side, and getgrgid's buffer is shared.
        var entry = Glibc.group()
        var buffer = [CChar](repeating: 0, count: 16_384)
        var found: UnsafeMutablePointer<Glibc.group>?
        getgrgid_r(getegid(), &entry, &buffer, buffer.count, &found)
        let name = found.map { String(cString: $0.pointee.gr_name) } ?? "?"
        #expect(denied.reason.contains("(groups: \(name)(\(getegid()))"), "\(denied)")
        // Those names read, the same denial is known in memory, word for word: a service denying
        // the same clients again asks no database.
        let knownDenial = try #require(otherGroup.knownStatus())
        #expect(knownDenial.kind == .denied && knownDenial.reason == denied.reason, "\(knownDenial)")

        let user = try RunsAsUser(String(geteuid()))
        #expect(try #require(user.knownStatus()).kind == .authorized)
        #expect(await user.resolveStatus().kind == .authorized)
    }

    /// A login held in memory: known at once when authorized, otherwise only its status knows.
    struct HeldLogin: CapabilityType {
        let held: CapabilityStatus
        var name: String { "held" }
        func status() async throws -> CapabilityStatus { held }
        func knownStatus() -> CapabilityStatus? { held }
    }

    @Test("a login kept across processes answers inline from memory when authorized; its record file only in status()")
    func keptAcrossProcesses() async throws {
        let records = KeptLoginRecords(directory: "/nonexistent/capabilities-known-status")
        let authorized = KeptAcrossProcesses(
            HeldLogin(held: .authorized("logged in")), records: records, uid: geteuid(), fingerprint: "f",
            keep: .seconds(60))
        #expect(authorized.knownStatus()?.kind == .authorized)
        let asking = KeptAcrossProcesses(
            HeldLogin(held: .notDetermined("would ask")), records: records, uid: geteuid(), fingerprint: "f",
            keep: .seconds(60))
        #expect(asking.knownStatus() == nil)
        #expect(await asking.resolveStatus().kind == .notDetermined)
    }
}
