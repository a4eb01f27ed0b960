import Capabilities
import CapabilityTesting
import ProcedureCore
import TestSupport
import Testing

/// Semantics rules 20 to 22 for the stand-alone operations, and requirements.
@Suite("Status and authorize operations", .timeLimit(.minutes(2)))
struct CapabilityProcedureTests {
    @Test("GetAuthorizationStatus reads without asking")
    func getStatus() async throws {
        let admin = ScriptedCapability(name: "admin")
        let get = GetAuthorizationStatus(admin)
        await run(get)
        #expect(try await get.value().kind == .notDetermined)
        #expect(admin.authorizationCount == 0)
        #expect(admin.statusReadCount == 1)
    }

    @Test("GetAuthorizationStatus reports a read error as unavailable, never as a definite denial")
    func getStatusError() async throws {
        let admin = ScriptedCapability(name: "admin")
        admin.failStatusReads(with: TestError("permission denied"))
        let get = GetAuthorizationStatus(admin)
        await run(get)
        let status = try await get.value()
        #expect(status.kind == .unavailable)
        #expect(status.reason.contains("permission denied"))
    }

    @Test("Authorize asks only when notDetermined and returns the new status")
    func authorizeAsksOnlyWhenUndetermined() async throws {
        for initial in [CapabilityStatus.authorized("ok"), .denied("locked"), .unavailable("gone")] {
            let capability = ScriptedCapability(name: "c", status: initial)
            let authorize = Authorize(capability)
            await run(authorize)
            #expect(try await authorize.value() == initial)
            #expect(capability.authorizationCount == 0)
        }
        let capability = ScriptedCapability(name: "c")
        capability.answerAuthorizations(.becomes(.authorized("granted")))
        let authorize = Authorize(capability)
        await run(authorize)
        #expect(try await authorize.value() == .authorized("granted"))
        #expect(capability.authorizationCount == 1)
    }

    @Test("Authorize carries the per-capability exclusivity category")
    func authorizeCategory() {
        let authorize = Authorize(ScriptedCapability(name: "pam:admin"))
        #expect(authorize.exclusivityCategories == [Authorize.exclusivityCategory(for: "pam:admin")])
    }

    @Test("grant requirements")
    func grantRequirements() {
        let readWrite = GrantRequirement.grants("read", "write")
        #expect(readWrite.isMet(by: .authorized("rw", grants: ["read", "write", "execute"])))
        #expect(!readWrite.isMet(by: .authorized("ro", grants: ["read"])))
        #expect(!readWrite.isMet(by: CapabilityStatus(.denied, reason: "no", grants: ["read", "write"])))
        #expect(GrantRequirement.authorized.isMet(by: .authorized("yes")))
        #expect(!GrantRequirement.authorized.isMet(by: .notDetermined("ask")))
        #expect(readWrite.description == "authorized for read and write")
    }

    @Test("resolveStatus reports an unavailable backend without reading")
    func resolveUnavailable() async {
        let capability = ScriptedCapability(name: "c", availability: .unavailable(reason: "no kernel support"))
        #expect(await capability.resolveStatus() == .unavailable("no kernel support", cause: .backendMissing))
        #expect(capability.statusReadCount == 0)
    }
}
