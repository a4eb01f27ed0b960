import Capabilities
import CapabilityTesting
import ProcedureCore
import TestSupport
import Testing

/// Semantics rule 23: authorization requests for one capability are serialized; the gated
/// work is not. And contract 13 for a gate waiting on a person.
@Suite("Authorization serialization", .timeLimit(.minutes(2)))
struct AuthorizationSerializationTests {
    /// Without a status in memory (`answersAtOnce` false), the later requests find the answer
    /// only by reading the status again: they must not use what their gates read before the
    /// first request asked.
    @Test(
        "concurrent gates on one capability ask one at a time, and a kept answer is not asked again",
        arguments: [true, false])
    func serializedPrompts(answersAtOnce: Bool) async {
        let firstAsked = Latch()
        let answer = Latch()
        let admin = ScriptedCapability(name: "admin", answersAtOnce: answersAtOnce) {
            firstAsked.open()
            await answer.wait()
        }
        admin.answerAuthorizations(.becomes(.authorized("password accepted")))
        let queue = ProcedureQueue()
        let ran = Counter()
        let gated = (0..<4).map { index in
            let procedure = BlockProcedure(name: "gated \(index)") { ran.increment() }
            procedure.addCondition(AuthorizedFor(admin))
            return procedure
        }
        queue.addProcedures(gated)
        await firstAsked.wait()
        answer.open()
        for procedure in gated { await procedure.waitUntilFinished() }
        #expect(ran.count == 4)
        #expect(admin.mostConcurrentAuthorizations == 1)
        #expect(admin.authorizationCount == 1)
    }

    @Test("requests across queues are serialized too")
    func serializedAcrossQueues() async {
        let admin = ScriptedCapability(name: "admin")
        admin.answerAuthorizations(.returns(.denied("no")), .returns(.denied("no")), .returns(.denied("no")))
        let procedures = (0..<3).map { index in
            let procedure = BlockProcedure(name: "gated \(index)") {}
            procedure.addCondition(AuthorizedFor(admin))
            return procedure
        }
        for procedure in procedures { ProcedureQueue().addProcedure(procedure) }
        for procedure in procedures { await procedure.waitUntilFinished() }
        #expect(admin.authorizationCount == 3)
        #expect(admin.mostConcurrentAuthorizations == 1)
    }

    @Test("the gated work itself runs concurrently")
    func gatedWorkNotSerialized() async {
        let admin = ScriptedCapability(name: "admin", status: .authorized("logged in"))
        let firstRunning = Latch()
        let secondRunning = Latch()
        let first = AsyncProcedure<Void>(name: "first") {
            firstRunning.open()
            await secondRunning.wait()
        }
        let second = AsyncProcedure<Void>(name: "second") {
            secondRunning.open()
            await firstRunning.wait()
        }
        for procedure in [first, second] { procedure.addCondition(AuthorizedFor(admin)) }
        // Each waits for the other: both finish only if they run at the same time.
        ProcedureQueue().addProcedures([first, second])
        await first.waitUntilFinished()
        await second.waitUntilFinished()
        #expect(first.error == nil && second.error == nil)
    }

    @Test("cancelling a gated procedure while a person is being asked finishes it promptly")
    func cancelWhileAsking() async {
        let asked = Latch()
        let answer = Latch()
        let admin = ScriptedCapability(name: "admin") {
            asked.open()
            await answer.wait()
        }
        let ran = Counter()
        let procedure = BlockProcedure(name: "gated") { ran.increment() }
        procedure.addCondition(AuthorizedFor(admin))
        ProcedureQueue().addProcedure(procedure)
        await asked.wait()
        procedure.cancel()
        await procedure.waitUntilFinished()
        #expect(procedure.isCancelled)
        #expect(ran.count == 0)
        answer.open()
    }
}
