import Capabilities
import CapabilityTesting
import ProcedureCore
import TestSupport
import Testing

/// Semantics rules 20 to 24 through the `AuthorizedFor` gate, and its compositions (12, 15-18).
@Suite("AuthorizedFor", .timeLimit(.minutes(2)))
struct AuthorizedForTests {
    /// Runs `body` gated by `condition` and reports whether the body ran.
    private func gate(_ condition: any ProcedureCondition) async -> (ran: Bool, procedure: Procedure) {
        let ran = Counter()
        let procedure = BlockProcedure(name: "gated") { ran.increment() }
        procedure.addCondition(condition)
        await run(procedure)
        return (ran.count == 1, procedure)
    }

    private func failure(of procedure: Procedure) -> CapabilityError? {
        guard let error = procedure.error as? ProcedureError, let explanation = error.explanation else { return nil }
        return explanation.failedLeaves.lazy.compactMap { $0.error as? CapabilityError }.first
    }

    @Test("an authorized capability passes without asking", arguments: [true, false])
    func authorizedPasses(answersAtOnce: Bool) async {
        let admin = ScriptedCapability(name: "admin", status: .authorized("logged in"), answersAtOnce: answersAtOnce)
        let (ran, procedure) = await gate(AuthorizedFor(admin))
        #expect(ran)
        #expect(procedure.error == nil)
        #expect(admin.authorizationCount == 0)
    }

    @Test("notDetermined asks once, and the new status decides", arguments: [true, false])
    func notDeterminedAsks(answersAtOnce: Bool) async {
        // A name of its own: requests of the same name in tests running alongside would make the
        // authorization read again (AuthorizationTurns).
        let admin = ScriptedCapability(name: "admin asked once \(answersAtOnce)", answersAtOnce: answersAtOnce)
        admin.answerAuthorizations(.becomes(.authorized("password accepted")))
        let turnBefore = AuthorizationTurns.current(admin.name)
        let (ran, procedure) = await gate(AuthorizedFor(admin))
        let othersAsked = AuthorizationTurns.current(admin.name) &- turnBefore &- 1
        #expect(ran)
        #expect(admin.authorizationCount == 1)
        #expect(procedure.conditionExplanation?.outcome == .passed)
        // One read per phase: the gate's read is handed to the authorization, which does not
        // read again (an answer in memory is asked once more, as it may have changed meanwhile).
        // A request of another key sharing this key's counter (256 shared by hash) that asked
        // meanwhile, in a test running alongside, makes the authorization read again, as designed.
        let reads = answersAtOnce ? 2 : 1
        let extra = !answersAtOnce && othersAsked > 0 ? 1 : 0
        #expect(admin.statusReadCount == reads || admin.statusReadCount == reads + extra)
    }

    @Test("an authorization that is returned but not kept still opens this gate")
    func oneShotAuthorization() async {
        let admin = ScriptedCapability(name: "admin")
        admin.answerAuthorizations(.returns(.authorized("password accepted, nothing cached")))
        let (ran, _) = await gate(AuthorizedFor(admin))
        #expect(ran)
        let status = await admin.resolveStatus()
        #expect(status.kind == .notDetermined)
    }

    @Test("a refused authorization fails the gate as unauthorized, with the status and reason")
    func refusedAuthorization() async throws {
        let admin = ScriptedCapability(name: "admin")
        admin.answerAuthorizations(.becomes(.denied("wrong password")))
        let (ran, procedure) = await gate(AuthorizedFor(admin))
        #expect(!ran)
        #expect(procedure.isCancelled)
        let error = try #require(failure(of: procedure))
        #expect(
            error == .unauthorized(capability: "admin", status: .denied("wrong password"), requirement: "authorized"))
        #expect(String(describing: procedure.error!).contains("wrong password"))
        #expect(String(describing: procedure.error!).contains("AuthorizedFor(admin)"))
    }

    @Test("denied never asks: asking would not change it")
    func deniedNeverAsks() async {
        let admin = ScriptedCapability(name: "admin", status: .denied("account locked"))
        let (ran, procedure) = await gate(AuthorizedFor(admin))
        #expect(!ran)
        #expect(admin.authorizationCount == 0)
        #expect(failure(of: procedure)?.status == .denied("account locked"))
    }

    @Test("an unavailable backend fails as unavailable without reading or asking")
    func unavailable() async throws {
        let pam = ScriptedCapability(name: "pam", availability: .unavailable(reason: "libpam.so.0 not found"))
        let (ran, procedure) = await gate(AuthorizedFor(pam))
        #expect(!ran)
        #expect(pam.statusReadCount == 0)
        #expect(pam.authorizationCount == 0)
        let error = try #require(failure(of: procedure))
        #expect(
            error
                == .unavailable(
                    capability: "pam", status: .unavailable("libpam.so.0 not found", cause: .backendMissing)))
    }

    @Test("an unavailable status fails as unavailable")
    func unavailableStatus() async throws {
        let host = ScriptedCapability(name: "db", status: .unavailable("no such host"))
        let (ran, procedure) = await gate(AuthorizedFor(host))
        #expect(!ran)
        #expect(failure(of: procedure)?.code == .unavailable, "\(String(describing: procedure.error))")
    }

    @Test("the requirement decides whether an authorized status is enough")
    func requirementDecides() async throws {
        let readOnly = ScriptedCapability(
            name: "data-dir", status: .authorized("mode 0555", grants: ["read", "execute"]),
            requirement: .grants("read", "write"))
        let (ran, procedure) = await gate(AuthorizedFor(readOnly))
        #expect(!ran)
        let error = try #require(failure(of: procedure))
        #expect(error.description.contains("authorized for read and write"))

        let readWrite = ScriptedCapability(
            name: "data-dir", status: .authorized("mode 0755", grants: ["read", "write", "execute"]),
            requirement: .grants("read", "write"))
        #expect(await gate(AuthorizedFor(readWrite)).ran)
    }

    @Test(
        "an error while reading the status leaves the gate undecided (unavailable), carrying the error",
        arguments: [true, false])
    func statusErrorFailsClosed(answersAtOnce: Bool) async throws {
        let admin = ScriptedCapability(name: "admin", status: .authorized("ok"), answersAtOnce: answersAtOnce)
        admin.failStatusReads(with: TestError("cannot open /run/faillock"))
        let (ran, procedure) = await gate(AuthorizedFor(admin))
        #expect(!ran)
        #expect(admin.authorizationCount == 0)
        let error = try #require(failure(of: procedure))
        #expect(error.status.kind == .unavailable)
        #expect(error.status.reason.contains("cannot open /run/faillock"))
        #expect(procedure.conditionExplanation?.failedLeaves.first?.outcome == .undecided)
        // Semantics rule 24: no negation turns the error into a pass.
        #expect(!(await gate(Negated(Silent(AuthorizedFor(admin)))).ran))
    }

    @Test("an error while authorizing leaves the gate undecided, carrying the error")
    func authorizeErrorFailsClosed() async throws {
        let admin = ScriptedCapability(name: "admin")
        admin.answerAuthorizations(.fails(TestError("conversation failed")))
        let (ran, procedure) = await gate(AuthorizedFor(admin))
        #expect(!ran)
        let error = try #require(failure(of: procedure))
        #expect(error.status.kind == .unavailable)
        #expect(error.status.reason.contains("conversation failed"))
    }

    // MARK: Never ask when the gate fails anyway (contract 12)

    @Test("a failing non-interactive check means no capability is asked")
    func failingCheckPreventsAsking() async {
        let admin = ScriptedCapability(name: "admin")
        let procedure = BlockProcedure(name: "gated") {}
        procedure.addCondition(AuthorizedFor(admin))
        procedure.addCondition(BlockCondition(name: "disk has room") { _ in false })
        await run(procedure)
        #expect(procedure.isCancelled)
        #expect(admin.authorizationCount == 0)
        let failed = procedure.conditionExplanation?.failedLeaves.map(\.condition) ?? []
        #expect(failed == ["disk has room"])
        // The capability is still reported, as not asked.
        let leaves = procedure.conditionExplanation?.children ?? []
        let adminLeaf = leaves.first { $0.condition == "AuthorizedFor(admin)" }
        #expect(adminLeaf?.outcome == .notChecked)
        #expect(adminLeaf?.reason.contains("not asked") == true)
    }

    @Test("a denied capability means another capability is not asked")
    func deniedCapabilityPreventsAskingAnother() async {
        let admin = ScriptedCapability(name: "admin")
        let network = ScriptedCapability(name: "network", status: .denied("no route to host"), answersAtOnce: false)
        let (ran, procedure) = await gate(AllOf(AuthorizedFor(admin), AuthorizedFor(network)))
        #expect(!ran)
        #expect(admin.authorizationCount == 0)
        #expect(network.authorizationCount == 0)
        #expect(procedure.conditionExplanation?.failedLeaves.map(\.condition) == ["AuthorizedFor(network)"])
    }

    @Test("two capabilities that both need asking are asked one after the other, and both must pass")
    func twoInteractiveCapabilities() async {
        let admin = ScriptedCapability(name: "admin")
        let token = ScriptedCapability(name: "token")
        admin.answerAuthorizations(.becomes(.denied("wrong password")))
        token.answerAuthorizations(.becomes(.authorized("token accepted")))
        let (ran, _) = await gate(AllOf(AuthorizedFor(admin), AuthorizedFor(token)))
        #expect(!ran)
        // After the first refusal the gate cannot pass, so the second is never asked.
        #expect(admin.authorizationCount + token.authorizationCount == 1)
    }

    // MARK: Compositions (contract 15 to 18)

    @Test("Silent never asks; notDetermined fails")
    func silentNeverAsks() async {
        let admin = ScriptedCapability(name: "admin")
        admin.answerAuthorizations(.becomes(.authorized("would have been granted")))
        let (ran, procedure) = await gate(Silent(AuthorizedFor(admin)))
        #expect(!ran)
        #expect(admin.authorizationCount == 0)
        #expect(procedure.conditionExplanation?.failedLeaves.first?.condition == "AuthorizedFor(admin)")
    }

    @Test("Silent passes on a status that is already authorized")
    func silentPassesWhenAuthorized() async {
        let admin = ScriptedCapability(name: "admin", status: .authorized("kept"))
        #expect(await gate(Silent(AuthorizedFor(admin))).ran)
        #expect(admin.authorizationCount == 0)
    }

    @Test("Negated(Silent(AuthorizedFor(x))) runs only while x is not authorized, and never asks")
    func negatedSilent() async {
        let x = ScriptedCapability(name: "x")
        #expect(await gate(Negated(Silent(AuthorizedFor(x)))).ran)
        x.setStatus(.authorized("granted meanwhile"))
        let (ran, procedure) = await gate(Negated(Silent(AuthorizedFor(x))))
        #expect(!ran)
        #expect(String(describing: procedure.error!).contains("AuthorizedFor(x)"))
        #expect(x.authorizationCount == 0)
    }

    @Test("Negated keeps the produced authorization: it passes when asking is refused")
    func negatedKeepsDependency() async {
        let x = ScriptedCapability(name: "x")
        x.answerAuthorizations(.becomes(.denied("refused")))
        #expect(await gate(Negated(AuthorizedFor(x))).ran)
        #expect(x.authorizationCount == 1)
    }

    @Test("any-of passes on one authorized capability without asking the other")
    func anyOfWithoutAsking() async {
        let sudo = ScriptedCapability(name: "sudo", status: .authorized("timestamp fresh"))
        let pam = ScriptedCapability(name: "pam")
        #expect(await gate(AnyOf(AuthorizedFor(sudo), AuthorizedFor(pam))).ran)
        #expect(pam.authorizationCount == 0)
    }

    @Test("any-of asks when only asking can make it pass")
    func anyOfAsks() async {
        let sudo = ScriptedCapability(name: "sudo", status: .denied("not in sudoers"))
        let pam = ScriptedCapability(name: "pam")
        pam.answerAuthorizations(.becomes(.authorized("logged in")))
        #expect(await gate(AnyOf(AuthorizedFor(sudo), AuthorizedFor(pam))).ran)
        #expect(pam.authorizationCount == 1)
    }

    /// A check that only cancellation ends, as a name lookup to a dead server is.
    struct EndlessCheck: CapabilityType {
        let started = Latch()
        let cancelled = Latch()
        var name: String { "endless" }

        func status() async throws -> CapabilityStatus {
            let (never, keptOpen) = AsyncStream<Void>.makeStream()
            started.open()
            for await _ in never {}  // ends only when the task is cancelled
            withExtendedLifetime(keptOpen) {}
            cancelled.open()
            throw CancellationError()
        }
    }

    @Test(
        "cancelling a procedure cancels the checks its gate is waiting for, also inside any-of",
        arguments: [false, true])
    func cancellationReachesTheCheck(composed: Bool) async {
        let check = EndlessCheck()
        let procedure = BlockProcedure(name: "gated") {}
        let condition: any ProcedureCondition =
            composed ? AnyOf(AuthorizedFor(check), Silent(AuthorizedFor(check))) : AuthorizedFor(check)
        procedure.addCondition(condition)
        ProcedureQueue().addProcedure(procedure)
        await check.started.wait()
        procedure.cancel()
        // Without the cancellation reaching the check, this waits until the suite's time limit.
        await check.cancelled.wait()
        await procedure.waitUntilFinished()
        #expect(procedure.isCancelled)
    }
}
