import Testing

@testable import ProcedureCore

/// How a procedure keeps its conditions and their answers (ConditionList): in the order added,
/// past the first two, with every answer explained, whichever way each was reached.
@Suite(.timeLimit(.minutes(2)))
struct ConditionListTests {
    /// Runs `procedure` on a queue of its own and returns its explanation.
    private func explanation(of procedure: Procedure) async -> ConditionExplanation? {
        ProcedureQueue().addProcedure(procedure)
        await procedure.waitUntilFinished()
        return procedure.conditionExplanation
    }

    @Test("five conditions keep their order, and each answer's reason, default or not, is explained")
    func manyConditionsInOrder() async throws {
        let procedure = BlockProcedure {}
        let names = ["a", "b", "c", "d", "e"]
        for (index, name) in names.enumerated() {
            if index.isMultiple(of: 2) {
                procedure.addCondition(BlockCondition(name: name) { _ in true })
            } else {
                procedure.addCondition(BlockCondition(name: name, result: { _ in .satisfied("\(name) is fine") }))
            }
        }
        #expect(procedure.conditions.map(\.name) == names)
        let explanation = try #require(await explanation(of: procedure))
        #expect(procedure.error == nil)
        #expect(explanation.outcome == .passed)
        #expect(explanation.children.map(\.condition) == names)
        #expect(
            explanation.children.map(\.reason) == [
                "satisfied", "b is fine", "satisfied", "d is fine", "satisfied",
            ])
    }

    @Test("answers after a failed condition are kept and explained in place")
    func failureInTheMiddle() async throws {
        let procedure = BlockProcedure {}
        procedure.addCondition(BlockCondition(name: "first") { _ in true })
        procedure.addCondition(BlockCondition(name: "second") { _ in false })
        procedure.addCondition(BlockCondition(name: "third", result: { _ in .satisfied("third holds") }))
        let explanation = try #require(await explanation(of: procedure))
        #expect(procedure.isCancelled)
        #expect(explanation.children.map(\.outcome) == [.passed, .failed, .passed])
        #expect(explanation.children.map(\.reason) == ["satisfied", "the check returned false", "third holds"])
    }

    @Test("a condition answering through its completion handler after default answers: all are explained")
    func lateAnswerAfterDefaults() async throws {
        let late = ScriptedCondition("late", answer: .satisfied)
        let procedure = BlockProcedure {}
        procedure.addCondition(BlockCondition(name: "early") { _ in true })
        procedure.addCondition(late)
        procedure.addCondition(BlockCondition(name: "after") { _ in true })
        let explanation = try #require(await explanation(of: procedure))
        #expect(procedure.error == nil)
        #expect(late.evaluations.count == 1)
        #expect(explanation.children.map(\.reason) == ["satisfied", "late holds", "satisfied"])
    }

    @Test("one answer with a reason of its own among default ones is explained in its place")
    func oneReasonAmongDefaults() async throws {
        let procedure = BlockProcedure {}
        procedure.addCondition(BlockCondition(name: "first") { _ in true })
        procedure.addCondition(BlockCondition(name: "gate", result: { _ in .satisfied("password accepted") }))
        procedure.addCondition(BlockCondition(name: "third") { _ in true })
        let explanation = try #require(await explanation(of: procedure))
        #expect(procedure.error == nil)
        #expect(explanation.children.map(\.reason) == ["satisfied", "password accepted", "satisfied"])
    }

    @Test("a reason of its own, then a late answer, then a failure: each is explained in place")
    func reasonThenLateThenFailure() async throws {
        let late = ScriptedCondition("late", answer: .satisfied)
        let procedure = BlockProcedure {}
        procedure.addCondition(BlockCondition(name: "gate", result: { _ in .satisfied("password accepted") }))
        procedure.addCondition(late)
        procedure.addCondition(BlockCondition(name: "last") { _ in false })
        let explanation = try #require(await explanation(of: procedure))
        #expect(procedure.isCancelled)
        #expect(explanation.children.map(\.outcome) == [.passed, .passed, .failed])
        #expect(explanation.children.map(\.reason) == ["password accepted", "late holds", "the check returned false"])
    }

    @Test("a reason of its own past the 256th condition is kept too")
    func reasonPastTheInlineLimit() async throws {
        let procedure = BlockProcedure {}
        for index in 0..<300 {
            if index == 280 {
                procedure.addCondition(BlockCondition(name: "c\(index)", result: { _ in .satisfied("number 280") }))
            } else {
                procedure.addCondition(BlockCondition(name: "c\(index)") { _ in true })
            }
        }
        let explanation = try #require(await explanation(of: procedure))
        #expect(procedure.error == nil)
        #expect(explanation.children.count == 300)
        #expect(explanation.children[280].reason == "number 280")
        #expect(explanation.children.enumerated().allSatisfy { $0.offset == 280 || $0.element.reason == "satisfied" })
    }

    @Test("compositions beside plain conditions: every leaf's answer is explained under its node")
    func compositionsKeepLeafAnswers() async throws {
        let procedure = BlockProcedure {}
        procedure.addCondition(BlockCondition(name: "plain") { _ in true })
        procedure.addCondition(
            AnyOf(
                name: "either",
                [
                    BlockCondition(name: "no") { _ in false },
                    BlockCondition(name: "yes", result: { _ in .satisfied("yes holds") }),
                ]))
        let explanation = try #require(await explanation(of: procedure))
        #expect(procedure.error == nil)
        #expect(explanation.children.map(\.condition) == ["plain", "either"])
        let either = explanation.children[1]
        #expect(either.children.map(\.reason) == ["the check returned false", "yes holds"])
    }

    @Test("no explanation before the conditions were evaluated")
    func nothingBeforeEvaluation() {
        let procedure = BlockProcedure {}
        procedure.addCondition(BlockCondition(name: "c") { _ in true })
        #expect(procedure.conditionExplanation == nil)
        #expect(procedure.conditions.map(\.name) == ["c"])
    }
}
