/// The verdict on a condition checked outside a procedure's run, with its explanation.
public struct ConditionReport: Sendable {
    /// ``ConditionResult/Verdict/satisfied``, ``ConditionResult/Verdict/failed`` or
    /// ``ConditionResult/Verdict/undecided``; or ``ConditionResult/Verdict/needsInteraction``
    /// when interaction was not allowed and only asking someone could make it pass.
    public let verdict: ConditionResult.Verdict
    /// Every part of the condition, with its outcome and why.
    public let explanation: ConditionExplanation
}

extension ProcedureCondition {
    /// ``check(allowingInteraction:)`` without interaction, when every part answers at once (a
    /// status already known, a flag's value): the same evaluation, without a continuation, so a
    /// service deciding on its client's thread does not start a task for what needs none. Nil when
    /// a part must be waited for.
    package func checkWithoutWaiting() -> ConditionReport? {
        let tree = ConditionTree(condition: self, silenced: false)
        let checked = ConditionEvaluation.ImmediateCheck(tree: tree, procedure: BlockProcedure(name: name) {})
        guard checked.firstUnchecked == tree.leaves.count else { return nil }
        let record = ConditionRecord(tree: tree, results: checked.results)
        return ConditionReport(verdict: tree.verdict(results: record.results), explanation: record.explanation)
    }

    /// Checks this condition now, with the same evaluation a procedure's conditions get, so a
    /// tool that only checks and a program that gates work on it can never disagree.
    ///
    /// - Parameter allowingInteraction: When true, produced dependencies (authorization requests,
    ///   which may ask someone for a password) run on a queue of their own, as they would for a
    ///   procedure, and only while the condition can still pass. When false, nobody is asked: a
    ///   condition that could pass only by asking reports ``ConditionResult/Verdict/needsInteraction``.
    public func check(allowingInteraction: Bool) async -> ConditionReport {
        let procedure = BlockProcedure(name: name) {}
        guard allowingInteraction else {
            let tree = ConditionTree(condition: self, silenced: false)
            return await withCheckedContinuation { continuation in
                let evaluation = ConditionEvaluation(procedure: procedure, tree: tree, runsDependencies: false) {
                    record, _ in
                    continuation.resume(
                        returning: ConditionReport(
                            verdict: tree.verdict(results: record.results), explanation: record.explanation))
                }
                evaluation.start()
            }
        }
        // Decided without asking anyone, the procedure would end on these answers (its evaluation's
        // first phase): decided here, without a queue, its two threads and a timer, which were half
        // a millisecond of an in-process `capctl check` (Docs/Performance.md, "Ninth session").
        if let decided = checkWithoutWaiting(), decided.verdict != .needsInteraction { return decided }
        procedure.addCondition(self)
        ProcedureQueue().addProcedure(procedure)
        await procedure.waitUntilFinished()
        // The procedure's explanation has its conditions under one root; this condition is the only one.
        guard let explanation = procedure.conditionExplanation?.children.first else {
            let reason = procedure.error.map { "\($0)" } ?? "not evaluated"
            return ConditionReport(
                verdict: .undecided,
                explanation: ConditionExplanation(condition: name, outcome: .undecided, reason: reason))
        }
        let verdict: ConditionResult.Verdict =
            switch explanation.outcome {
            case .passed: .satisfied
            case .failed: .failed
            case .undecided, .notChecked: .undecided
            }
        return ConditionReport(verdict: verdict, explanation: explanation)
    }
}
