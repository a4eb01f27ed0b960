import Logging
import TestSupport
import Testing

@testable import ProcedureCore

/// Semantics rule 46.
@Suite(.timeLimit(.minutes(2)))
struct LoggingTests {
    @Test("46: state changes and condition decisions are logged at debug level, each naming the procedure")
    func debugMessages() async {
        let log = LogCapture()
        let queue = ProcedureQueue(name: "jobs", logger: log.logger(level: .debug))
        let passing = BlockProcedure(name: "passing") {}
        passing.addCondition(BlockCondition(name: "open") { _ in true })
        let failing = BlockProcedure(name: "failing") {}
        failing.addCondition(BlockCondition(name: "closed") { _ in false })
        let failed = BlockProcedure(name: "thrower") { throw TestError("boom") }
        for procedure in [passing, failing, failed] {
            queue.addProcedure(procedure)
            await procedure.waitUntilFinished()
        }
        let messages = log.messages(at: .debug)
        #expect(
            messages.filter { $0.hasPrefix("passing: ") } == [
                "passing: added to queue 'jobs'", "passing: conditions satisfied", "passing: executing",
                "passing: finished",
            ])
        let failingMessages = messages.filter { $0.hasPrefix("failing: ") }
        #expect(failingMessages.first == "failing: added to queue 'jobs'")
        #expect(failingMessages.contains("failing: conditions not satisfied: closed: the check returned false"))
        #expect(failingMessages.contains { $0.hasPrefix("failing: cancelled while evaluatingConditions") })
        #expect(failingMessages.last?.hasPrefix("failing: finished with error: conditions not satisfied") == true)
        #expect(messages.contains("thrower: finished with error: boom"))
        #expect(
            messages.allSatisfy { $0.hasPrefix("passing: ") || $0.hasPrefix("failing: ") || $0.hasPrefix("thrower: ") })
    }

    @Test("46: above debug level no debug message reaches the handler; the level is read when the logger is set")
    func quietAboveDebug() async {
        let log = LogCapture()
        let queue = ProcedureQueue(logger: log.logger(level: .info))
        let procedure = BlockProcedure(name: "quiet") {}
        await run(procedure, on: queue)
        #expect(log.messages(at: .debug).isEmpty)
        queue.logger = log.logger(level: .debug)
        await run(BlockProcedure(name: "loud") {}, on: queue)
        #expect(log.messages(at: .debug).contains("loud: executing"))
    }

    @Test("46: a group's children log through the queue the group runs on")
    func groupChildrenInheritTheLogger() async {
        let log = LogCapture()
        let queue = ProcedureQueue(name: "outer", logger: log.logger(level: .debug))
        let group = GroupProcedure(name: "group") { BlockProcedure(name: "child") {} }
        await run(group, on: queue)
        #expect(log.messages(at: .debug).contains("child: executing"))
    }
}
