import Capabilities
import CapabilityTesting
import Dispatch
import Locking
import ProcedureCore
import TestSupport
import Testing

/// Authorizations that expire (polkit's auth_admin_keep, sudo's timestamp).
@Suite("Kept authorizations", .timeLimit(.minutes(2)))
struct KeptAuthorizationTests {
    @Test("an authorization is kept for the configured time, then notDetermined again")
    func expires() async throws {
        let clock = ManualClock()
        let login = ScriptedCapability(name: "admin")
        login.answerAuthorizations(.returns(.authorized("password accepted")))
        let admin = login.keepingAuthorization(for: .seconds(300), clock: clock)

        #expect(try await admin.status().kind == .notDetermined)
        #expect(try await admin.status().cause == nil)
        #expect(try await admin.authorize().kind == .authorized)
        #expect(try await admin.status().kind == .authorized)
        #expect(admin.knownStatus()?.kind == .authorized)

        clock.advance(by: .seconds(299))
        #expect(try await admin.status().kind == .authorized)
        #expect(try await admin.authorize().kind == .authorized)
        #expect(login.authorizationCount == 1)

        clock.advance(by: .seconds(1))
        #expect(try await admin.status().kind == .notDetermined)
        #expect(admin.knownStatus()?.kind == .notDetermined)
        // Programs tell an expiry from a first login by the cause, not by the words.
        #expect(try await admin.status().cause == .expired)
        #expect(admin.knownStatus()?.cause == .expired)
        login.answerAuthorizations(.returns(.authorized("password accepted again")))
        #expect(try await admin.authorize().kind == .authorized)
        #expect(try await admin.status().cause == nil)
        clock.advance(by: .seconds(300))
        #expect(try await admin.status().cause == .expired)
    }

    @Test("a gate passes on a kept authorization without asking again")
    func gateUsesKeptAuthorization() async {
        let login = ScriptedCapability(name: "admin")
        login.answerAuthorizations(.returns(.authorized("password accepted")))
        let admin = login.keepingAuthorization(for: .seconds(3600), clock: ManualClock())
        for _ in 0..<3 {
            let procedure = BlockProcedure {}
            procedure.addCondition(AuthorizedFor(admin))
            await run(procedure)
            #expect(procedure.error == nil)
        }
        #expect(login.authorizationCount == 1)
    }

    @Test(
        "a gate evaluated again and again reads the kept authorization in place: the status's answer, none once revoked, expired or short of a grant"
    )
    func gateReadsKeptAuthorizationInPlace() async throws {
        let clock = ManualClock()
        let login = ScriptedCapability(name: "admin", requirement: .grants("backup"))
        login.answerAuthorizations(
            .returns(.authorized("password accepted", grants: ["backup", "restore"])),
            .returns(.authorized("password accepted again", grants: ["restore"])))
        let admin = login.keepingAuthorization(for: .seconds(60), clock: clock)
        let gate = AuthorizedFor(admin)
        let procedure = BlockProcedure {}
        let context = ConditionContext(allowsInteraction: false)
        func answer() -> ConditionResult? { gate.evaluateImmediately(for: procedure, context: context) }
        // A gate made afresh reads the whole status (its first evaluation): what the in-place read must match.
        func statusAnswer() -> ConditionResult? {
            AuthorizedFor(admin).evaluateImmediately(for: procedure, context: context)
        }

        _ = try await admin.authorize()
        let kept = try #require(admin.knownStatus()?.reason)
        // The first two evaluations read the status; the in-place read takes over from the third.
        for _ in 0..<5 {
            let result = try #require(answer())
            #expect(result.verdict == .satisfied && result.reason == kept, "\(result)")
            #expect(result.reason == statusAnswer()?.reason && result.verdict == statusAnswer()?.verdict)
        }
        clock.advance(by: .seconds(60))
        #expect(answer()?.verdict != .satisfied)
        #expect(admin.knownStatus()?.cause == .expired)

        // Kept again, but without the grant the gate requires.
        _ = try await admin.authorize()
        #expect(admin.knownStatus()?.kind == .authorized)
        for _ in 0..<3 { #expect(answer()?.verdict == .failed) }
        #expect(answer()?.verdict == statusAnswer()?.verdict)

        login.answerAuthorizations(.returns(.authorized("and again", grants: ["backup"])))
        admin.revoke()
        _ = try await admin.authorize()
        for _ in 0..<3 { #expect(answer()?.verdict == .satisfied) }
        admin.revoke()
        #expect(answer()?.verdict != .satisfied)
        #expect(answer()?.verdict == statusAnswer()?.verdict)
    }

    @Test("a refusal is not kept")
    func refusalNotKept() async throws {
        let login = ScriptedCapability(name: "admin")
        login.answerAuthorizations(.returns(.denied("wrong password")), .returns(.authorized("right password")))
        let admin = login.keepingAuthorization(for: .seconds(60), clock: ManualClock())
        #expect(try await admin.authorize().kind == .denied)
        #expect(try await admin.status().kind == .notDetermined)
        #expect(try await admin.authorize().kind == .authorized)
        #expect(login.authorizationCount == 2)
    }

    @Test("revoke forgets the kept authorization")
    func revoke() async throws {
        let login = ScriptedCapability(name: "admin")
        login.answerAuthorizations(.returns(.authorized("ok")))
        let admin = login.keepingAuthorization(for: .seconds(60), clock: ManualClock())
        _ = try await admin.authorize()
        admin.revoke()
        #expect(try await admin.status().kind == .notDetermined)
    }

    @Test("observers see the authorization and its expiry")
    func expiryIsObserved() async throws {
        let clock = ManualClock()
        let login = ScriptedCapability(name: "admin")
        login.answerAuthorizations(.returns(.authorized("ok")))
        let admin = login.keepingAuthorization(for: .seconds(60), clock: clock)
        var updates = admin.statusUpdates().makeAsyncIterator()
        #expect(await updates.next()?.kind == .notDetermined)
        _ = try await admin.authorize()
        #expect(await updates.next()?.kind == .authorized)
        await clock.waitForSleepers()
        clock.advance(by: .seconds(60))
        #expect(await updates.next()?.kind == .notDetermined)
    }

    // On the system's continuous clock (CLOCK_BOOTTIME, read directly): no sleeping, the
    // durations are chosen so the answer does not depend on how fast the test runs.

    @Test(
        "on the continuous clock, an hour's keep holds and a zero or negative keep never does",
        arguments: [(Duration.seconds(3600), true), (.zero, false), (.seconds(-5), false)])
    func continuousClock(keep: Duration, kept: Bool) async throws {
        let login = ScriptedCapability(name: "admin")
        login.answerAuthorizations(.returns(.authorized("password accepted")))
        let admin = login.keepingAuthorization(for: keep)
        #expect(try await admin.authorize().kind == .authorized)
        #expect(try await admin.status().kind == (kept ? .authorized : .notDetermined))
        #expect(admin.knownStatus()?.kind == (kept ? .authorized : .notDetermined))
    }

    @Test("a keep beyond Int64 nanoseconds saturates instead of trapping or wrapping into the past")
    func hugeKeeps() async throws {
        for keep in [Duration.seconds(Int64.max), .seconds(Int64.max / 2)] {
            for clock in [nil, ManualClock()] {
                let login = ScriptedCapability(name: "admin")
                login.answerAuthorizations(.returns(.authorized("ok")))
                let admin =
                    clock.map { login.keepingAuthorization(for: keep, clock: $0) }
                    ?? login.keepingAuthorization(for: keep)
                _ = try await admin.authorize()
                #expect(try await admin.status().kind == .authorized)
            }
        }
        let login = ScriptedCapability(name: "admin")
        login.answerAuthorizations(.returns(.authorized("ok")))
        let never = login.keepingAuthorization(for: .seconds(Int64.min))
        _ = try await never.authorize()
        #expect(try await never.status().kind == .notDetermined)
    }

    @Test("checks on many threads see the kept authorization, and none sees it once revoke returned")
    func copiesPerProcessor() async throws {
        let login = ScriptedCapability(name: "admin")
        login.answerAuthorizations(.returns(.authorized("password accepted by the PAM service")))
        let admin = login.keepingAuthorization(for: .seconds(3600))
        _ = try await admin.authorize()
        let reasons = Lock<Set<String>>([])
        DispatchQueue.concurrentPerform(iterations: 256) { _ in
            let status = admin.knownStatus()
            reasons.withLock { _ = $0.insert("\(status?.kind.rawValue ?? "nil"): \(status?.reason ?? "")") }
        }
        #expect(reasons.withLock { $0 } == ["authorized: password accepted by the PAM service (kept for 1 h)"])
        admin.revoke()
        let authorized = Lock(0)
        DispatchQueue.concurrentPerform(iterations: 256) { _ in
            if admin.knownStatus()?.kind == .authorized { authorized.withLock { $0 += 1 } }
        }
        #expect(authorized.withLock { $0 } == 0)
    }
}
