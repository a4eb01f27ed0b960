import Locking
import TestSupport
import Testing

@testable import ProcedureCore

/// Semantics rules 15 to 18: composed conditions, and the explanation tree.
@Suite(.timeLimit(.minutes(2)))
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
        let inner = ScriptedCondition("x", answer: .needsInteraction, interactive: true, answerAfterAsking: .failed)
        let (ran, _) = await outcome(of: Negated(inner))
        #expect(inner.dependenciesMade.count == 1)
        #expect(ran)
    }

    @Test("16: Silent never produces the dependency; it only reads the current state")
    func silent() async {
        let inner = ScriptedCondition("x", answer: .needsInteraction, interactive: true)
        let (ran, procedure) = await outcome(of: Silent(inner))
        #expect(inner.dependenciesMade.count == 0)
        #expect(!ran)
        #expect(procedure.conditionExplanation?.failedLeaves.first?.reason.contains("not asked") == true)
        let authorized = ScriptedCondition("y", answer: .satisfied, interactive: true)
        #expect(await outcome(of: Silent(authorized)).ran)
    }

    @Test("17: Negated(Silent(x)) runs only if x is not authorized now, and never asks")
    func negatedSilent() async {
        let notYet = ScriptedCondition("x", answer: .needsInteraction, interactive: true)
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
        let interactive = ScriptedCondition("auth", answer: .needsInteraction, interactive: true)
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
        #expect(
            text == """
                all conditions: failed: 1 of 3 failed
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
            condition.evaluate(for: BlockProcedure {}, context: ConditionContext(allowsInteraction: false)) {
                continuation.resume(returning: $0)
            }
        }
        #expect(result.verdict == .satisfied)
        #expect(result.reason == "passed: b")
    }

    @Test(
        "15, 24: undecided is never turned into a pass",
        arguments: [
            ("Negated(undecided)", false),
            ("AnyOf(undecided, failed)", false),
            ("AnyOf(undecided, satisfied)", true),
            ("AllOf(undecided, satisfied)", false),
            ("Negated(AllOf(undecided, satisfied))", false),
            ("Negated(AllOf(undecided, failed))", true),
            ("Negated(AnyOf(undecided, failed))", false),
            ("Negated(Silent(undecided))", false),
            ("AnyOf(Negated(undecided), Negated(undecided))", false),
        ])
    func undecidedNeverPasses(expression: String, expectedToRun: Bool) async {
        let undecided = ScriptedCondition("undecided", answer: .undecided)
        let failed = ScriptedCondition("failed", answer: .failed)
        let satisfied = ScriptedCondition("satisfied", answer: .satisfied)
        let conditions: [String: any ProcedureCondition] = [
            "Negated(undecided)": Negated(undecided),
            "AnyOf(undecided, failed)": AnyOf(undecided, failed),
            "AnyOf(undecided, satisfied)": AnyOf(undecided, satisfied),
            "AllOf(undecided, satisfied)": AllOf(undecided, satisfied),
            "Negated(AllOf(undecided, satisfied))": Negated(AllOf(undecided, satisfied)),
            // Kleene: one definite failure decides an all-of whatever the other part is.
            "Negated(AllOf(undecided, failed))": Negated(AllOf(undecided, failed)),
            "Negated(AnyOf(undecided, failed))": Negated(AnyOf(undecided, failed)),
            "Negated(Silent(undecided))": Negated(Silent(undecided)),
            "AnyOf(Negated(undecided), Negated(undecided))": AnyOf(Negated(undecided), Negated(undecided)),
        ]
        let condition = conditions[expression]!
        let (ran, procedure) = await outcome(of: condition)
        #expect(ran == expectedToRun, "\(expression)")
        let standalone = await condition.check(allowingInteraction: false)
        #expect((standalone.verdict == .satisfied) == expectedToRun)
        if !expectedToRun {
            let leaves = procedure.conditionExplanation?.failedLeaves ?? []
            #expect(leaves.contains { $0.outcome == .undecided } || expression.contains("failed"))
        }
    }

    /// A condition that answers at once with `verdict`, as a known status does.
    struct KnownCondition: SynchronousCondition {
        let name: String
        let verdict: ConditionResult.Verdict

        func evaluate(for procedure: Procedure, context: ConditionContext) -> ConditionResult {
            switch verdict {
            case .satisfied: .satisfied("\(name) holds")
            case .failed: .failed("\(name) does not hold")
            case .undecided: .undecided("\(name) could not be decided")
            case .needsInteraction: .needsInteraction("\(name) needs asking")
            }
        }
    }

    @Test(
        "a condition whose every part answers at once is checked without waiting, to the same verdict in the same words"
    )
    func checkedWithoutWaiting() async throws {
        let holds = KnownCondition(name: "holds", verdict: .satisfied)
        let fails = KnownCondition(name: "fails", verdict: .failed)
        let unknown = KnownCondition(name: "unknown", verdict: .undecided)
        let conditions: [any ProcedureCondition] = [
            AllOf(name: "gate all", [holds, fails]), AnyOf(name: "gate any", [unknown, holds]),
            Negated(AllOf(name: "gate inner", [unknown, holds])), Silent(fails), AllOf(name: "gate one", [holds]),
        ]
        for condition in conditions {
            let waited = await condition.check(allowingInteraction: false)
            let now = try #require(condition.checkWithoutWaiting(), "\(condition.name)")
            #expect(now.verdict == waited.verdict, "\(condition.name)")
            #expect(now.explanation.description == waited.explanation.description, "\(condition.name)")
        }
        // A part that must be waited for (its answer comes through a completion): nil, and the
        // waited check still decides.
        let slow = ScriptedCondition("slow", answer: .satisfied)
        let mixed = AllOf(name: "gate mixed", [holds, slow])
        #expect(mixed.checkWithoutWaiting() == nil)
        #expect(await mixed.check(allowingInteraction: false).verdict == .satisfied)
    }

    @Test("an undecided leaf shows as undecided, with its reason, up the tree")
    func undecidedExplanation() async {
        let condition = Negated(ScriptedCondition("backend", answer: .undecided))
        let report = await condition.check(allowingInteraction: false)
        #expect(report.verdict == .undecided)
        #expect(
            report.explanation.description == """
                Negated(backend): undecided: backend could not be decided, so neither can its negation
                  backend: undecided: backend could not be decided
                """)
        #expect(report.explanation.failedLeaves.map(\.condition) == ["backend"])
    }

    @Test("undecided does not ask: an all-of that cannot pass never runs another part's dependency")
    func undecidedDoesNotAsk() async {
        let interactive = ScriptedCondition("auth", answer: .needsInteraction, interactive: true)
        let (ran, _) = await outcome(of: AllOf(ScriptedCondition("backend", answer: .undecided), interactive))
        #expect(!ran)
        #expect(interactive.dependenciesMade.count == 0)
        // An any-of can still pass by asking, so it asks.
        let other = ScriptedCondition("auth", answer: .needsInteraction, interactive: true)
        let (anyRan, _) = await outcome(of: AnyOf(ScriptedCondition("backend", answer: .undecided), other))
        #expect(anyRan)
        #expect(other.dependenciesMade.count == 1)
    }

    @Test("checking with and without asking explains a decided condition in the same words")
    func oneExplanation() async {
        let condition = AllOf(
            name: "gate export",
            [
                ScriptedCondition("disk", answer: .failed),
                ScriptedCondition("auth", answer: .needsInteraction, interactive: true),
            ])
        let asked = await condition.check(allowingInteraction: true)
        let notAsked = await condition.check(allowingInteraction: false)
        #expect(asked.verdict == .failed)
        #expect(notAsked.verdict == .failed)
        #expect(asked.explanation.description == notAsked.explanation.description)
        #expect(asked.explanation.description.hasPrefix("gate export: failed: 1 of 2 failed"))
        #expect(asked.explanation.description.contains("auth: not checked: not asked: auth needs asking"))
    }

    /// Answers at once, as a known status does, and records the state of the procedure it is
    /// checked for; asking (its dependency) makes it hold.
    final class WitnessedCondition: SynchronousCondition, @unchecked Sendable {
        let name: String
        let producesDependency: Bool
        private let answer: Lock<ConditionResult.Verdict>
        let statesSeen = Lock<[ProcedureState]>([])
        let dependenciesMade = Counter()

        init(_ name: String, answer: ConditionResult.Verdict, interactive: Bool = false) {
            (self.name, producesDependency) = (name, interactive)
            self.answer = Lock(answer)
        }

        func makeDependency(for procedure: Procedure) -> Procedure? {
            dependenciesMade.increment()
            return BlockProcedure(name: "ask \(name)") { [self] in answer.withLock { $0 = .satisfied } }
        }

        func evaluate(for procedure: Procedure, context: ConditionContext) -> ConditionResult {
            statesSeen.withLock { $0.append(procedure.state) }
            return KnownCondition(name: name, verdict: answer.withLock { $0 }).evaluate(
                for: procedure, context: context)
        }
    }

    @Test(
        "allowing interaction, a condition decided without asking is checked without a queue; one that must ask still asks"
    )
    func decidedWithoutAQueue() async {
        // Never enqueued: the procedure it is checked for stays initialized.
        let holds = WitnessedCondition("holds", answer: .satisfied)
        #expect(await holds.check(allowingInteraction: true).verdict == .satisfied)
        #expect(holds.statesSeen.withLock { $0 } == [.initialized])

        // Cannot pass whatever is asked: failed, nobody asked, no queue.
        let fails = WitnessedCondition("disk", answer: .failed)
        let auth = WitnessedCondition("auth", answer: .needsInteraction, interactive: true)
        let both = AllOf(name: "gate both", [fails, auth])
        let report = await both.check(allowingInteraction: true)
        #expect(report.verdict == .failed)
        #expect(auth.dependenciesMade.count == 0)
        #expect((fails.statesSeen.withLock { $0 } + auth.statesSeen.withLock { $0 }).allSatisfy { $0 == .initialized })
        #expect(
            report.explanation.description == (await both.check(allowingInteraction: false)).explanation.description)

        // Only asking can make it pass: the procedure runs on a queue, asks, and holds.
        let asks = WitnessedCondition("auth", answer: .needsInteraction, interactive: true)
        #expect(await asks.check(allowingInteraction: true).verdict == .satisfied)
        #expect(asks.dependenciesMade.count == 1)
        #expect(asks.statesSeen.withLock { $0 }.contains(.evaluatingConditions))
    }

    @Test("a thrown error in a BlockCondition is undecided")
    func thrownErrorIsUndecided() async {
        struct Broken: Error {}
        let condition = BlockCondition(name: "probe") { _ in throw Broken() }
        #expect(!(await outcome(of: Negated(condition)).ran))
        #expect(await condition.check(allowingInteraction: false).verdict == .undecided)
    }
}
