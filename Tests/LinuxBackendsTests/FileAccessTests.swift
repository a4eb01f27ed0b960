import Capabilities
import ConfigurationFiles
import Foundation
import Glibc
import LinuxBackends
import TestSupport
import Testing

/// File access for the effective user, checked by the kernel. Denials are tested in a child
/// running as uid 65534: as root, access(2) says yes even to mode 000, so a denial test run
/// as root would prove nothing.
@Suite("File access")
struct FileAccessTests {
    @Test("a relative path is refused when the capability is made")
    func relativePath() {
        #expect(throws: CapabilityConfigurationError.self) { try FileAccess("data/file", access: .read) }
        #expect(throws: CapabilityConfigurationError.self) { try FileAccess("/tmp", access: .create, kind: .file) }
    }

    @Test("granted access, with what is granted")
    func granted() async throws {
        let scratch = try TemporaryDirectory()
        let file = try scratch.file("data", mode: 0o644)
        let status = await (try FileAccess(file, access: [.read, .write], kind: .file)).resolveStatus()
        #expect(status.kind == .authorized)
        #expect(status.grants.isSuperset(of: ["read", "write"]))
        let directory = await (try FileAccess(scratch.path, access: .create, kind: .directory)).resolveStatus()
        #expect(directory.kind == .authorized)
        #expect(directory.grants.contains("create"))
    }

    @Test("a missing path is unavailable; a wrong type is denied")
    func missingAndType() async throws {
        let scratch = try TemporaryDirectory()
        let file = try scratch.file("data", mode: 0o644)
        let missing = await (try FileAccess(scratch.path + "/none", access: .read)).resolveStatus()
        #expect(missing.kind == .unavailable)
        #expect(missing.cause == .resourceMissing)
        #expect(await (try FileAccess(file + "/below", access: .read)).resolveStatus().kind == .unavailable)
        let notDirectory = await (try FileAccess(file, access: .read, kind: .directory)).resolveStatus()
        #expect(notDirectory.kind == .denied)
        #expect(notDirectory.reason.contains("is a file, not a directory"))
        let notFile = await (try FileAccess(scratch.path, access: .read, kind: .file)).resolveStatus()
        #expect(notFile.reason.contains("is a directory, not a file"))
    }

    @Test(
        "as the unprivileged user: no permission is denied, with the reason",
        .enabled(if: Probe.canDropPrivileges, "needs root to start a child as uid 65534"))
    func deniedWhenUnprivileged() throws {
        let scratch = try TemporaryDirectory()
        let secret = try scratch.file("secret", mode: 0o000)
        let readable = try scratch.file("readable", mode: 0o644)
        let locked = try scratch.directory("locked", mode: 0o555)
        let hidden = try scratch.directory("hidden", mode: 0o700)
        _ = try scratch.file("hidden/inside", mode: 0o644)

        let noRead = try Probe.statusAsNobody(["file", secret, "r"])
        #expect(noRead.kind == .denied)
        #expect(noRead.reason.contains("read: permission denied"))

        let readOnly = try Probe.statusAsNobody(["file", readable, "rw"])
        #expect(readOnly.kind == .denied)
        #expect(readOnly.grants == ["read"])
        #expect(readOnly.reason.contains("write: permission denied"))
        #expect(try Probe.statusAsNobody(["file", readable, "r"]).kind == .authorized)

        let noCreate = try Probe.statusAsNobody(["file", locked, "c", "directory"])
        #expect(noCreate.kind == .denied)
        #expect(noCreate.reason.contains("create: permission denied"))
        #expect(noCreate.grants == ["read", "execute"])

        let behindLockedDirectory = try Probe.statusAsNobody(["file", hidden + "/inside", "r"])
        #expect(behindLockedDirectory.kind == .denied)
        #expect(behindLockedDirectory.reason.contains("permission denied"))
    }

    @Test(
        "as root with CAP_DAC_OVERRIDE, mode 000 is still readable: why denials need another user",
        .enabled(if: Probe.canDropPrivileges))
    func rootOverridesPermissions() async throws {
        let scratch = try TemporaryDirectory()
        let secret = try scratch.file("secret", mode: 0o000)
        let hasOverride = try LinuxCapabilitySet.effective().contains(
            LinuxCapabilitySet.number(of: "CAP_DAC_OVERRIDE")!)
        #expect(
            await (try FileAccess(secret, access: .read)).resolveStatus().kind == (hasOverride ? .authorized : .denied))
    }

    /// A directory on a read-only mount, if this machine has one (containers mount /sys or /proc parts read-only).
    static let readOnlyMount: String? = {
        guard let mounts = try? String(contentsOfFile: "/proc/self/mounts", encoding: .utf8) else { return nil }
        for line in mounts.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count >= 4, fields[3].split(separator: ",").contains("ro") else { continue }
            let point = String(fields[1]).replacingOccurrences(of: "\\040", with: " ")
            var info = stat()
            if stat(point, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR { return point }
        }
        return nil
    }()

    @Test(
        "a read-only file system is named as the reason",
        .enabled(if: readOnlyMount != nil, "this machine has no read-only mount"))
    func readOnlyFileSystem() async throws {
        let status = await (try FileAccess(Self.readOnlyMount!, access: .write)).resolveStatus()
        #expect(status.kind == .denied)
        #expect(status.reason.contains("read-only file system"))
    }
}
