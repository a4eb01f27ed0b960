import CapabilityPolicy
import ProcedureCore
import Testing
import Varlink

@testable import DecisionService

/// A Check's reply written straight from the decision is the reply made of its varlink value,
/// byte for byte: with and without a description, an action, an explanation nested three deep,
/// and strings that must be escaped.
@Suite("a decision written as a Check reply")
struct DecisionVarlinkTests {
    private static let awkward = "quote \" backslash \\ newline \n tab \t bell \u{07} delete \u{7F} é 🔑 /slash"

    private static var decisions: [Decision] {
        let leaf = ConditionExplanation(condition: "AuthorizedFor(spool)", outcome: .failed, reason: awkward)
        let middle = ConditionExplanation(
            condition: "any of", outcome: .notChecked, reason: "", children: [leaf, leaf])
        let root = ConditionExplanation(
            condition: "gate \"maintenance\"", outcome: .passed, reason: "all 3 passed",
            children: [middle, ConditionExplanation(condition: "c", outcome: .undecided, reason: "r")])
        return Decision.Outcome.allCases.flatMap { outcome in
            [
                Decision(gate: "g", outcome: outcome, description: nil, explanation: nil),
                Decision(gate: awkward, outcome: outcome, description: awkward, explanation: root),
                Decision(gate: "", outcome: outcome, description: "", explanation: leaf),
            ]
        }
    }

    @Test("byte for byte what the value makes")
    func sameBytes() {
        for decision in Self.decisions {
            let expected = VarlinkReplies.encodedReply([("decision", decision.varlinkValue)])
            #expect(
                decision.checkReply == expected,
                "\(String(decoding: decision.checkReply, as: UTF8.self)) against \(String(decoding: expected, as: UTF8.self))"
            )
        }
        // Every outcome, needsInteraction's action among them.
        #expect(Self.decisions.contains { !$0.actions.isEmpty })
    }
}
