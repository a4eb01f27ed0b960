import Capabilities
import ConfigurationFiles
import Glibc
import LinuxBackends
import Testing

/// Linux capabilities from the effective set, users and groups, each checked against the kernel
/// and in children started with other credentials.
@Suite("Process capabilities, users and groups")
struct ProcessCapabilityTests {
    @Test("names are accepted in any common spelling; unknown ones are refused")
    func names() throws {
        #expect(try ProcessCapability("net_bind_service").capability == "CAP_NET_BIND_SERVICE")
        #expect(try ProcessCapability("cap_sys_admin").number == 21)
        #expect(throws: CapabilityConfigurationError.self) { try ProcessCapability("CAP_FLY") }
        #expect(throws: CapabilityConfigurationError.self) { try MemberOfGroup("no-such-group-\(getpid())") }
        #expect(throws: CapabilityConfigurationError.self) { try RunsAsUser("no-such-user-\(getpid())") }
    }

    @Test("the status follows the effective set, not the user id")
    func followsEffectiveSet() async throws {
        let effective = try LinuxCapabilitySet.effective()
        for name in ["CAP_NET_BIND_SERVICE", "CAP_SYS_RESOURCE", "CAP_CHOWN"] {
            let status = await (try ProcessCapability(name)).resolveStatus()
            #expect(
                status.kind == (effective.contains(LinuxCapabilitySet.number(of: name)!) ? .authorized : .denied),
                "\(name): \(status)")
        }
    }

    @Test(
        "a child whose bounding set lacks the capability is denied it, even as root",
        .enabled(if: Probe.canDropPrivileges))
    func droppedFromBoundingSet() throws {
        let full = try Probe.status(["capability", "CAP_NET_BIND_SERVICE"])
        let dropped = try Probe.status(
            ["capability", "CAP_NET_BIND_SERVICE"], via: ["/usr/bin/setpriv", "--bounding-set=-net_bind_service"])
        #expect(full.kind == .authorized)
        #expect(dropped.kind == .denied)
        #expect(dropped.reason.contains("not in the effective set"))
        #expect(try Probe.statusAsNobody(["capability", "CAP_NET_BIND_SERVICE"]).kind == .denied)
    }

    @Test(
        "where capget(2) is refused (a seccomp filter), the effective set is read from the status file, with the same answers",
        .enabled(if: Probe.canDropPrivileges))
    func withoutCapget() throws {
        let full = try Probe.status(["capability", "CAP_NET_BIND_SERVICE", "without-capget"])
        #expect(full.kind == .authorized)
        #expect(full.reason.contains("is in the effective set"))
        let dropped = try Probe.status(
            ["capability", "CAP_NET_BIND_SERVICE", "without-capget"],
            via: ["/usr/bin/setpriv", "--bounding-set=-net_bind_service"])
        #expect(dropped.kind == .denied)
        let nobody = try Probe.statusAsNobody(["capability", "CAP_NET_BIND_SERVICE", "without-capget"])
        #expect(nobody.kind == .denied)
        #expect(nobody.reason.contains("(effective: (none))"))
    }

    @Test("users and groups", .enabled(if: Probe.canDropPrivileges))
    func usersAndGroups() async throws {
        #expect(await (try RunsAsUser("root")).resolveStatus().kind == .authorized)
        #expect(await (try RunsAsUser("65534")).resolveStatus().kind == .denied)
        #expect(await (try MemberOfGroup("0")).resolveStatus().kind == .authorized)
        #expect(try Probe.statusAsNobody(["user", "65534"]).kind == .authorized)
        #expect(try Probe.statusAsNobody(["user", "root"]).kind == .denied)
        let group = try Probe.statusAsNobody(["group", "0"])
        #expect(group.kind == .denied)
        #expect(group.reason.contains("not a member"))
        let supplementary = try Probe.status(
            ["group", "0"], via: ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--groups=0"])
        #expect(supplementary.kind == .authorized)
        #expect(supplementary.reason.contains("supplementary"))
    }
}
