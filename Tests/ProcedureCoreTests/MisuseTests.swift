import TestSupport
import Testing

@testable import ProcedureCore

/// Misuse is reported and never weakens a gate (Semantics rule 42).
@Suite(.timeLimit(.minutes(2)))
struct MisuseTests {
    @Test(
        "42: a dependency, condition or category added after enqueueing cancels a procedure that has not started",
        arguments: ["dependency", "condition", "category"])
    func lateConfigurationFailsClosed(kind: String) async {
        let log = LogCapture()
        let queue = ProcedureQueue(name: "q", isSuspended: true, logger: log.logger(level: .warning))
        let executed = Counter()
        let procedure = BlockProcedure(name: "late") { executed.increment() }
        queue.addProcedure(procedure)
        switch kind {
        case "dependency": procedure.addDependency(BlockProcedure(name: "other") {})
        case "condition": procedure.addCondition(BlockCondition(name: "gate") { _ in false })
        default: procedure.addExclusivityCategory("printer")
        }
        queue.isSuspended = false
        await procedure.waitUntilFinished()
        #expect(executed.count == 0)
        #expect(procedure.isCancelled)
        let error = procedure.error as? ProcedureError
        #expect(error?.code == .misuse)
        #expect(error?.detail?.contains("added after it was enqueued") == true)
        let warnings = log.messages(at: .warning)
        #expect(warnings.count == 1)
        #expect(warnings.first?.hasPrefix("late: ") == true)
        #expect(warnings.first?.contains("cancelled") == true)
    }

    @Test("42: configuration after the body started is ignored, with a warning")
    func configurationWhileExecuting() async {
        let log = LogCapture()
        let queue = ProcedureQueue(logger: log.logger(level: .warning))
        let procedure = ManualProcedure(name: "running")
        queue.addProcedure(procedure)
        await procedure.started.wait()
        procedure.addCondition(BlockCondition(name: "gate") { _ in false })
        #expect(!procedure.isCancelled)
        procedure.finish()
        await procedure.waitUntilFinished()
        #expect(procedure.error == nil)
        #expect(
            log.messages(at: .warning) == [
                "running: the condition 'gate' was added after it started (executing): ignored"
            ])
    }

    @Test("42: adding a procedure to a second queue runs it once, on the first, and warns on the second")
    func secondQueue() async {
        let log = LogCapture()
        let first = ProcedureQueue(name: "first", isSuspended: true)
        let second = ProcedureQueue(name: "second", logger: log.logger(level: .warning))
        let runs = Counter()
        let procedure = BlockProcedure(name: "once") { runs.increment() }
        first.addProcedure(procedure)
        second.addProcedure(procedure)
        #expect(second.unfinishedCount == 0)
        first.isSuspended = false
        await procedure.waitUntilFinished()
        second.addProcedure(procedure)
        await first.waitUntilAllFinished()
        #expect(runs.count == 1)
        #expect(
            log.messages(at: .warning) == [
                "once: already added to queue 'first': not added again",
                "once: is finished: a procedure runs once, not added again",
            ])
    }

    @Test("42: finish before the body runs is ignored with a warning; the procedure then runs normally")
    func finishOutsideExecution() async {
        let log = LogCapture()
        let queue = ProcedureQueue(isSuspended: true, logger: log.logger(level: .warning))
        let runs = Counter()
        let procedure = BlockProcedure(name: "early") { runs.increment() }
        queue.addProcedure(procedure)
        procedure.finish(with: TestError())
        #expect(procedure.state == .ready)
        queue.isSuspended = false
        await procedure.waitUntilFinished()
        #expect(runs.count == 1)
        #expect(procedure.error == nil)
        #expect(log.messages(at: .warning) == ["early: finish called while ready, before executing: ignored"])
    }
}
