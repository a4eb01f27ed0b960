import Testing
@testable import ProcedureCore
import TestSupport

/// Contract lines 15 to 18: composed conditions, and the explanation tree.
@Suite(.timeLimit(.minutes(1)))
struct CompositionTests {
    func outcome(of condition: any ProcedureCondition) async -> (ran: Bool, procedure: BlockProcedure) {
        let ran = Counter()
        let procedure = BlockProcedure { ran.increment() }
        procedure.addCondition(condition)
        await run(procedure)
        return (ran.count == 1, procedure)
    }

    @Test("15: Negated is satisfied exactly when its condition is not, and names it when failing")
    func negated() async {
        #expect(await outcome(of: Negated(ScriptedCondition("x", answer: .failed))).ran)
        let (ran, procedure) = await outcome(of: Negated(ScriptedCondition("x", answer: .satisfied)))
        #expect(!ran)
        #expect(procedure.conditionExplanation?.children.first?.reason == "x is satisfied")
    }

    @Test("15: Negated keeps its condition's produced dependency")
    func negatedKeepsDependency() async {
        let inner = ScriptedCondition("x", answer: .undetermined, interactive: true, answerAfterAsking: .failed)
        let (ran, _) = await outcome(of: Negated(inner))
        #expect(inner.dependenciesMade.count == 1)
        #expect(ran)
    }

    @Test("16: Silent never produces the dependency; it only reads the current state")
    func silent() async {
        let inner = ScriptedCondition("x", answer: .undetermined, interactive: true)
        let (ran, procedure) = await outcome(of: Silent(inner))
        #expect(inner.dependenciesMade.count == 0)
        #expect(!ran)
        #expect(procedure.conditionExplanation?.failedLeaves.first?.reason.contains("not determined without asking") == true)
        let authorized = ScriptedCondition("y", answer: .satisfied, interactive: true)
        #expect(await outcome(of: Silent(authorized)).ran)
    }

    @Test("17: Negated(Silent(x)) runs only if x is not authorized now, and never asks")
    func negatedSilent() async {
        let notYet = ScriptedCondition("x", answer: .undetermined, interactive: true)
        #expect(await outcome(of: Negated(Silent(notYet))).ran)
        #expect(notYet.dependenciesMade.count == 0)
        let already = ScriptedCondition("x", answer: .satisfied, interactive: true)
        #expect(!(await outcome(of: Negated(Silent(already))).ran))
        #expect(already.dependenciesMade.count == 0)
    }

    @Test("18: AnyOf passes with one satisfied part; AllOf needs every part")
    func anyAndAll() async {
        let yes = ScriptedCondition("yes", answer: .satisfied)
        let no = ScriptedCondition("no", answer: .failed)
        #expect(await outcome(of: AnyOf(no, yes)).ran)
        #expect(!(await outcome(of: AnyOf(no, no)).ran))
        #expect(!(await outcome(of: AnyOf([])).ran))
        #expect(await outcome(of: AllOf(yes, yes)).ran)
        #expect(!(await outcome(of: AllOf(yes, no)).ran))
        #expect(await outcome(of: AllOf([])).ran)
    }

    @Test("18: AnyOf does not ask when another alternative already passes")
    func anyOfDoesNotAskInVain() async {
        let interactive = ScriptedCondition("auth", answer: .undetermined, interactive: true)
        let (ran, procedure) = await outcome(of: AnyOf(interactive, ScriptedCondition("local", answer: .satisfied)))
        #expect(ran)
        #expect(interactive.dependenciesMade.count == 0)
        let any = procedure.conditionExplanation?.children.first
        #expect(any?.children.map(\.outcome) == [.notChecked, .passed])
    }

    @Test("the explanation tree shows every leaf with passed, failed or not checked")
    func explanationTree() async {
        let condition = AllOf(
            ScriptedCondition("disk", answer: .satisfied),
            AnyOf(ScriptedCondition("lan", answer: .failed), ScriptedCondition("wifi", answer: .failed)),
            Negated(ScriptedCondition("maintenance", answer: .failed)))
        let (_, procedure) = await outcome(of: condition)
        let text = procedure.conditionExplanation?.description ?? ""
        #expect(text == """
            all conditions: failed: 1 of 1 failed
              AllOf(disk, AnyOf(lan, wifi), Negated(maintenance)): failed: 1 of 3 failed
                disk: passed: disk holds
                AnyOf(lan, wifi): failed: none of 2 passed
                  lan: failed: lan does not hold
                  wifi: failed: wifi does not hold
                Negated(maintenance): passed: maintenance is not satisfied
                  maintenance: failed: maintenance does not hold
            """)
    }

    @Test("a composed condition evaluated on its own gives the combined verdict")
    func standaloneEvaluation() async {
        let condition = AnyOf(ScriptedCondition("a", answer: .failed), ScriptedCondition("b", answer: .satisfied))
        let result = await withCheckedContinuation { continuation in
            condition.evaluate(for: BlockProcedure {}, context: ConditionContext(mayInteractLater: false)) {
                continuation.resume(returning: $0)
            }
        }
        #expect(result.verdict == .satisfied)
        #expect(result.reason == "passed: b")
    }
}
