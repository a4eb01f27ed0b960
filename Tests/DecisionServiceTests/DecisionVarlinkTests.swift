import CapabilityPolicy
import ProcedureCore
import TestSupport
import Testing

@testable import DecisionService
@testable import Varlink

/// A Check's reply written straight from the decision is the reply made of its varlink value,
/// byte for byte: with and without a description, an action, an explanation nested three deep,
/// and strings that must be escaped. Read straight back (DecisionClient's way), it is the
/// decision the message reader makes of it, or it is declined and read that way.
@Suite("a decision written as a Check reply, and read")
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

    /// What reading `bytes` (a reply without its NUL) as any reply makes of it: the decision, or
    /// nil where the message reader refuses it or it holds none.
    private static func read(_ bytes: [UInt8]) -> Decision? {
        guard let reply = try? VarlinkMessageReader.read(bytes), reply["error"] == nil,
            case .object? = reply["parameters"], reply["continues"] == nil,
            let value = reply["parameters"]?["decision"]
        else { return nil }
        return Decision(varlink: value)
    }

    /// Decisions of printable ASCII, as capctld's usual replies are: every outcome, with and
    /// without a description, explanations up to four deep and some wide.
    private static func asciiDecisions(_ count: Int) -> [Decision] {
        var random = SplitMix(seed: 58)
        func text() -> String {
            let characters = Array("abz AZ09 ()[]{}:,./'-_=+*&^%$#@!?<>|~`;")
            return String(
                (0..<Int.random(in: 0...24, using: &random)).map { _ in characters.randomElement(using: &random)! })
        }
        func explanation(_ depth: Int) -> ConditionExplanation {
            let outcomes: [ConditionExplanation.Outcome] = [.passed, .failed, .undecided, .notChecked]
            let children =
                depth == 0 ? [] : (0..<Int.random(in: 0...3, using: &random)).map { _ in explanation(depth - 1) }
            return ConditionExplanation(
                condition: text(), outcome: outcomes.randomElement(using: &random)!, reason: text(), children: children)
        }
        return (0..<count).map { index in
            Decision(
                gate: text(), outcome: Decision.Outcome.allCases[index % Decision.Outcome.allCases.count],
                description: Bool.random(using: &random) ? text() : nil,
                explanation: index % 5 == 0 ? nil : explanation(index % 4))
        }
    }

    @Test(
        "a reply as capctld writes it, in printable ASCII, is read straight into the decision the message reader makes")
    func readStraight() {
        for decision in Self.asciiDecisions(200) {
            let bytes = Array(decision.checkReply.dropLast())
            let straight = Decision.decodedCheckReply(bytes)
            #expect(straight != nil, "\(String(decoding: bytes, as: UTF8.self))")
            #expect(straight == Self.read(bytes))
            #expect(straight == decision)
        }
    }

    @Test(
        "anything else is declined and left to the message reader: escapes, other than ASCII, spaces, another order, more"
    )
    func declined() {
        // Each of these is a reply the message reader reads (every one but the last two to a decision).
        for decision in Self.decisions where decision.gate != "g" {
            #expect(Decision.decodedCheckReply(Array(decision.checkReply.dropLast())) == nil)
        }
        let plain =
            #"{"parameters":{"decision":{"gate":"g","outcome":"holds","description":null,"actions":[],"explanation":null}}}"#
        #expect(Decision.decodedCheckReply(Array(plain.utf8)) != nil)
        let variants = [
            #"{"parameters":{"decision":{"gate":"g\u0041","outcome":"holds","description":null,"actions":[],"explanation":null}}}"#,
            #"{"parameters":{"decision":{"gate":"gé","outcome":"holds","description":null,"actions":[],"explanation":null}}}"#,
            #"{"parameters": {"decision":{"gate":"g","outcome":"holds","description":null,"actions":[],"explanation":null}}}"#,
            #"{"parameters":{"decision":{"outcome":"holds","gate":"g","description":null,"actions":[],"explanation":null}}}"#,
            #"{"parameters":{"decision":{"gate":"g","outcome":"holds","actions":[],"explanation":null}}}"#,
            #"{"parameters":{"decision":{"gate":"g","outcome":"holds","description":null,"actions":[],"explanation":null,"more":1}}}"#,
            #"{"parameters":{"decision":{"gate":"g","outcome":"holds","description":null,"actions":[],"explanation":null}},"continues":true}"#,
            #"{"error":"org.varlink.service.InvalidParameter","parameters":{"parameter":"gate"}}"#,
            #"{"parameters":{"decision":{"gate":"g","outcome":"holds","description":null,"actions":[],"explanation":null}}} "#,
        ]
        for variant in variants {
            #expect(Decision.decodedCheckReply(Array(variant.utf8)) == nil, "\(variant)")
        }
        #expect(Self.read(Array(variants[0].utf8))?.gate == "gA")
        #expect(Self.read(Array(variants[3].utf8))?.gate == "g")
    }

    @Test("a reply changed a byte at a time is read straight only where the message reader reads the same decision")
    func changedReplies() {
        var random = SplitMix(seed: 1158)
        let replacements: [UInt8] =
            [0, 0x09, 0x0A, 0x20, 0x22, 0x2C, 0x3A, 0x5B, 0x5C, 0x5D, 0x7B, 0x7D, 0x7F, 0xC3, 0xFF]
            + Array("0aenlru".utf8)
        var readStraight = 0
        for decision in Self.asciiDecisions(12) {
            let bytes = Array(decision.checkReply.dropLast())
            for position in bytes.indices {
                var changes: [[UInt8]] = []
                for _ in 0..<3 {
                    var changed = bytes
                    changed[position] = replacements.randomElement(using: &random)!
                    changes.append(changed)
                }
                changes.append(Array(bytes[..<position]) + Array(bytes[(position + 1)...]))
                changes.append(
                    Array(bytes[..<position]) + [replacements.randomElement(using: &random)!]
                        + Array(bytes[position...]))
                changes.append(Array(bytes[..<position]))
                for changed in changes {
                    guard let straight = Decision.decodedCheckReply(changed) else { continue }
                    readStraight += 1
                    #expect(straight == Self.read(changed), "\(String(decoding: changed, as: UTF8.self))")
                }
            }
        }
        // Changes inside strings keep a reply readable: the test saw some read straight.
        #expect(readStraight > 100)
    }
}
