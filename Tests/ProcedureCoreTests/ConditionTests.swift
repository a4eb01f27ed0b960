import TestSupport
import Testing

@testable import ProcedureCore

/// Semantics rules 8 to 14: conditions.
@Suite(.timeLimit(.minutes(2)))
struct ConditionTests {
    @Test("8: conditions are evaluated only after every dependency finished")
    func afterDependencies() async {
        let dependency = ManualProcedure(name: "dependency")
        let sawFinished = Counter()
        let procedure = BlockProcedure {}
        procedure.addDependency(dependency)
        procedure.addCondition(
            BlockCondition { _ in
                if dependency.isFinished { sawFinished.increment() }
                return true
            })
        let queue = ProcedureQueue()
        queue.addProcedures([procedure, dependency])
        await dependency.started.wait()
        #expect(procedure.state == .pending)
        dependency.finish()
        await procedure.waitUntilFinished()
        #expect(sawFinished.count == 1)
    }

    @Test("8: conditions are not evaluated while the queue is suspended")
    func notWhileSuspended() async {
        let condition = ScriptedCondition("c", answer: .satisfied)
        let procedure = BlockProcedure {}
        procedure.addCondition(condition)
        let queue = ProcedureQueue(isSuspended: true)
        queue.addProcedure(procedure)
        #expect(condition.evaluations.count == 0)
        #expect(procedure.state == .pending)
        queue.isSuspended = false
        await procedure.waitUntilFinished()
        #expect(condition.evaluations.count == 1)
    }

    @Test("9: a produced dependency runs on the queue, after own dependencies, and is not listed")
    func producedDependency() async {
        let log = EventLog()
        let own = BlockProcedure(name: "own") { log.record("own") }
        let condition = ScriptedCondition("auth", answer: .needsInteraction, interactive: true)
        let procedure = BlockProcedure(name: "gated") { log.record("gated") }
        procedure.addDependency(own)
        procedure.addCondition(condition)
        let produced = EventLog()
        procedure.addObserver(
            BlockObserver(didProduce: { _, dependency in
                produced.record(dependency.name)
                log.record("produced")
            }))
        let queue = ProcedureQueue()
        queue.addProcedures([procedure, own])
        await procedure.waitUntilFinished()
        #expect(log.all == ["own", "produced", "gated"])
        #expect(produced.all == ["ask auth"])
        #expect(condition.dependenciesMade.count == 1)
        #expect(condition.evaluations.count == 2)
        #expect(procedure.error == nil)
    }

    @Test("10, 11: one unsatisfied condition vetoes; the procedure finishes cancelled with an error naming it")
    func unsatisfiedVetoes() async throws {
        let ran = Counter()
        let procedure = BlockProcedure { ran.increment() }
        procedure.addCondition(ScriptedCondition("yes", answer: .satisfied))
        procedure.addCondition(ScriptedCondition("no", answer: .failed))
        await run(procedure)
        #expect(ran.count == 0)
        #expect(procedure.isCancelled)
        guard let error = procedure.error as? ProcedureError, error.code == .conditionsNotSatisfied,
            let explanation = error.explanation
        else {
            Issue.record("expected conditionsNotSatisfied, got \(String(describing: procedure.error))")
            return
        }
        #expect(explanation.failedLeaves.map(\.condition) == ["no"])
        #expect(explanation.failedLeaves.first?.reason == "no does not hold")
        #expect("\(procedure.error!)".contains("no: no does not hold"))
    }

    @Test("12: every unmet condition is reported, and nobody is asked when a non-interactive check fails")
    func reportsAllAndNeverAsksInVain() async {
        let interactive = ScriptedCondition("auth", answer: .needsInteraction, interactive: true)
        let first = ScriptedCondition("disk", answer: .failed)
        let second = ScriptedCondition("network", answer: .failed)
        let procedure = BlockProcedure {}
        procedure.addCondition(interactive)
        procedure.addCondition(first)
        procedure.addCondition(second)
        await run(procedure)
        #expect(interactive.dependenciesMade.count == 0)
        let explanation = procedure.conditionExplanation
        #expect(explanation?.failedLeaves.map(\.condition) == ["disk", "network"])
        #expect(explanation?.children.first?.outcome == .notChecked)
    }

    @Test("12: interactive checks run one at a time and stop once the gate cannot pass")
    func stopsAskingWhenGateFails() async {
        let first = ScriptedCondition("first", answer: .needsInteraction, interactive: true, answerAfterAsking: .failed)
        let second = ScriptedCondition("second", answer: .needsInteraction, interactive: true)
        let procedure = BlockProcedure {}
        procedure.addCondition(first)
        procedure.addCondition(second)
        await run(procedure)
        #expect(first.dependenciesMade.count == 1)
        #expect(second.dependenciesMade.count == 0)
        #expect(procedure.isCancelled)
    }

    @Test("13: cancelling during evaluation stops it, cancels the produced dependency and finishes promptly")
    func cancelDuringEvaluation() async {
        let asking = ManualProcedure(name: "asking")
        struct Waiting: ProcedureCondition {
            let dependency: ManualProcedure
            var name: String { "waiting" }
            var producesDependency: Bool { true }
            func makeDependency(for procedure: Procedure) -> Procedure? { dependency }
            func evaluate(
                for procedure: Procedure, context: ConditionContext,
                completion: @escaping @Sendable (ConditionResult) -> Void
            ) {
                completion(context.allowsInteraction ? .needsInteraction("ask") : .satisfied())
            }
        }
        let ran = Counter()
        let procedure = BlockProcedure { ran.increment() }
        procedure.addCondition(Waiting(dependency: asking))
        let queue = ProcedureQueue()
        queue.addProcedure(procedure)
        await asking.started.wait()
        #expect(procedure.state == .evaluatingConditions)
        procedure.cancel()
        await procedure.waitUntilFinished()
        await asking.cancelled.wait()
        #expect(asking.isCancelled)
        #expect(ran.count == 0)
        asking.finish()
        await queue.waitUntilAllFinished()
    }

    @Test("14: a condition is evaluated once per run")
    func evaluatedOnce() async {
        let condition = ScriptedCondition("once", answer: .satisfied)
        let procedures = (0..<10).map { _ in BlockProcedure {} }
        for procedure in procedures { procedure.addCondition(condition) }
        let queue = ProcedureQueue()
        queue.addProcedures(procedures)
        await queue.waitUntilAllFinished()
        #expect(condition.evaluations.count == 10)
    }

    @Test("a condition that answers later through its completion handler is waited for")
    func asynchronousCondition() async {
        struct Later: ProcedureCondition {
            var name: String { "later" }
            func evaluate(
                for procedure: Procedure, context: ConditionContext,
                completion: @escaping @Sendable (ConditionResult) -> Void
            ) {
                Task { completion(.satisfied("answered from a task")) }
            }
        }
        let procedure = BlockProcedure {}
        procedure.addCondition(Later())
        await run(procedure)
        #expect(procedure.error == nil)
        #expect(procedure.conditionExplanation?.children.first?.reason == "answered from a task")
    }

    @Test("a condition whose check throws fails closed with the error as reason")
    func throwingCheckFails() async {
        let procedure = BlockProcedure {}
        procedure.addCondition(BlockCondition(name: "throws") { _ in throw TestError("io") })
        await run(procedure)
        #expect(procedure.isCancelled)
        #expect(procedure.conditionExplanation?.failedLeaves.first?.error as? TestError == TestError("io"))
    }

    @Test("12: a condition with a dependency is evaluated twice, or once after it when it opts out")
    func evaluationCount() async {
        let twice = ScriptedCondition("twice", answer: .needsInteraction, interactive: true)
        let once = ScriptedCondition(
            "once", answer: .needsInteraction, interactive: true, evaluatesBeforeDependency: false)
        let first = BlockProcedure {}
        first.addCondition(twice)
        let second = BlockProcedure {}
        second.addCondition(once)
        await run(first)
        await run(second)
        #expect(first.error == nil && second.error == nil)
        #expect(twice.evaluations.count == 2)
        #expect(once.evaluations.count == 1)
        #expect(once.dependenciesMade.count == 1)
        // Vetoed by another condition in the first phase: the opted-out one is neither asked nor evaluated.
        let skipped = ScriptedCondition(
            "skipped", answer: .needsInteraction, interactive: true, evaluatesBeforeDependency: false)
        let vetoed = BlockProcedure {}
        vetoed.addCondition(BlockCondition(name: "no") { _ in false })
        vetoed.addCondition(skipped)
        await run(vetoed)
        #expect(vetoed.isCancelled)
        #expect(skipped.evaluations.count == 0 && skipped.dependenciesMade.count == 0)
    }

    @Test("BlockCondition picks its form from the closure, with no type annotation")
    func blockConditionForms() async {
        // Returning a result: the result form, whose reason is kept.
        let full = BlockProcedure {}
        full.addCondition(BlockCondition(name: "room") { _ in .failed("12 MB free, 100 MB needed") })
        // Returning a Bool: the Bool form.
        let flag = BlockProcedure {}
        flag.addCondition(BlockCondition(name: "on") { _ in true })
        await run(full)
        await run(flag)
        #expect(full.conditionExplanation?.failedLeaves.first?.reason == "12 MB free, 100 MB needed")
        #expect(flag.error == nil)
    }

    @Test("19: NoFailedDependencies and NoCancelledDependencies name the dependencies")
    func dependencyConditions() async {
        let failed = BlockProcedure(name: "download") { throw TestError("404") }
        let cancelled = BlockProcedure(name: "upload") {}
        cancelled.cancel()
        let afterFailure = BlockProcedure {}
        afterFailure.addDependency(failed)
        afterFailure.addCondition(NoFailedDependencies())
        let afterCancel = BlockProcedure {}
        afterCancel.addDependency(cancelled)
        afterCancel.addCondition(NoCancelledDependencies())
        let tolerant = BlockProcedure {}
        tolerant.addDependency(cancelled)
        tolerant.addCondition(NoFailedDependencies())
        let queue = ProcedureQueue()
        queue.addProcedures([failed, cancelled, afterFailure, afterCancel, tolerant])
        await queue.waitUntilAllFinished()
        #expect(afterFailure.isCancelled)
        #expect(afterFailure.conditionExplanation?.failedLeaves.first?.reason == "failed dependencies: download (404)")
        #expect(afterCancel.isCancelled)
        #expect(afterCancel.conditionExplanation?.failedLeaves.first?.reason == "cancelled dependencies: upload")
        #expect(!tolerant.isCancelled)
    }

    @Test("19: a vetoed dependency is reported once, by NoCancelledDependencies")
    func vetoCountsOnce() async {
        let vetoed = BlockProcedure(name: "export") {}
        vetoed.addCondition(BlockCondition(name: "disk has room") { _ in false })
        let dependent = BlockProcedure(name: "upload") {}
        dependent.addDependency(vetoed)
        dependent.addCondition(NoFailedDependencies())
        dependent.addCondition(NoCancelledDependencies())
        let queue = ProcedureQueue()
        queue.addProcedures([vetoed, dependent])
        await queue.waitUntilAllFinished()
        #expect(vetoed.isCancelled && vetoed.error != nil, "a veto cancels, with the conditions' error")
        #expect(dependent.isCancelled)
        let reasons = dependent.conditionExplanation?.failedLeaves.map(\.reason) ?? []
        #expect(reasons == ["cancelled dependencies: export"])
    }

    @Test("19: dependencies produced by conditions are not checked by NoFailedDependencies")
    func producedDependenciesNotChecked() async {
        struct FailingAsk: ProcedureCondition {
            var name: String { "failing ask" }
            var producesDependency: Bool { true }
            func makeDependency(for procedure: Procedure) -> Procedure? { BlockProcedure { throw TestError("denied") } }
            func evaluate(
                for procedure: Procedure, context: ConditionContext,
                completion: @escaping @Sendable (ConditionResult) -> Void
            ) {
                completion(context.allowsInteraction ? .needsInteraction("ask") : .satisfied("fine anyway"))
            }
        }
        let procedure = BlockProcedure {}
        procedure.addCondition(FailingAsk())
        procedure.addCondition(NoFailedDependencies())
        await run(procedure)
        #expect(!procedure.isCancelled)
    }
}
