/// Why a condition passed or failed: a tree with one node per condition, composed ones
/// holding their parts, the way `systemd-analyze condition` reports each leaf.
///
/// ```swift
/// queue.addProcedure(export)
/// await export.waitUntilFinished()
/// if let explanation = export.conditionExplanation { print(explanation) }  // a line per condition
/// ```
public struct ConditionExplanation: Sendable, CustomStringConvertible {
    /// What happened to one node.
    public enum Outcome: String, Sendable, Equatable {
        /// Satisfied: it let the procedure run, as far as this node goes.
        case passed
        /// Refused: the procedure does not run because of it.
        case failed
        /// Could not be decided (an error, an unavailable backend); never counts as passing.
        case undecided
        /// Not evaluated, because the verdict was decided without it.
        case notChecked
    }

    /// The condition's name.
    public var condition: String
    /// What happened.
    public var outcome: Outcome
    /// Why, in words a person can read.
    public var reason: String
    /// The underlying error of a failed leaf, if any.
    public var error: (any Error)?
    /// The parts of a composed condition; empty for a leaf.
    public var children: [ConditionExplanation]

    /// Whether this leaf was evaluated and could pass only by asking someone: it reads
    /// ``ConditionExplanation/Outcome/notChecked`` because nobody was asked yet, not because the
    /// verdict was decided without it (its reason then begins "not asked: "). What a decision's
    /// record needs to say what the leaf stood at.
    public var wouldAsk: Bool { children.isEmpty && outcome == .notChecked && reason.hasPrefix(Self.notAskedPrefix) }

    /// How the reason of a leaf that would ask begins.
    package static let notAskedPrefix = "not asked: "

    /// Creates an explanation node.
    public init(
        condition: String, outcome: Outcome, reason: String,
        error: (any Error)? = nil, children: [ConditionExplanation] = []
    ) {
        self.condition = condition
        self.outcome = outcome
        self.reason = reason
        self.error = error
        self.children = children
    }

    /// Whether this node passed.
    public var passed: Bool { outcome == .passed }

    /// Every failed or undecided leaf below (or at) this node, in order.
    ///
    /// A failed node none of whose parts failed (a negation whose condition held) counts as
    /// a leaf here, so every failure is named.
    public var failedLeaves: [ConditionExplanation] {
        let isFailure = outcome == .failed || outcome == .undecided
        guard isFailure else { return [] }
        if children.isEmpty { return [self] }
        let below = children.flatMap(\.failedLeaves)
        return below.isEmpty ? [self] : below
    }

    /// The tree as indented text, one node per line.
    public var description: String {
        var lines: [String] = []
        render(into: &lines, depth: 0)
        return lines.joined(separator: "\n")
    }

    private func render(into lines: inout [String], depth: Int) {
        let indent = String(repeating: "  ", count: depth)
        let mark: String =
            switch outcome {
            case .passed: "passed"
            case .failed: "failed"
            case .undecided: "undecided"
            case .notChecked: "not checked"
            }
        lines.append("\(indent)\(condition): \(mark): \(reason)")
        for child in children { child.render(into: &lines, depth: depth + 1) }
    }
}

extension ConditionExplanation: Equatable {
    /// Whether two explanations say the same: the same conditions, outcomes, reasons and parts.
    /// The underlying errors are not compared (an error need not be equatable, and what a
    /// person is told of one is its reason).
    public static func == (left: ConditionExplanation, right: ConditionExplanation) -> Bool {
        left.condition == right.condition && left.outcome == right.outcome && left.reason == right.reason
            && left.children == right.children
    }
}
