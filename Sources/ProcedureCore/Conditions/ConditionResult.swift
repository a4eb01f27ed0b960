/// The answer of one condition.
///
/// There are three final answers: the condition holds (``Verdict/satisfied``), it definitely
/// does not hold (``Verdict/failed``: a denied status, a flag that is off), or it could not be
/// decided (``Verdict/undecided``: an error, an unavailable backend, a value of the wrong type).
/// Compositions keep the last two apart, so no negation or any-of turns "could not decide"
/// into a pass. A fourth, provisional answer, ``Verdict/needsInteraction``, lets a condition that
/// produces a dependency say "this could pass if we ask".
///
/// ```swift
/// let quota = BlockCondition(name: "quota") { _ in
///     freeSpace() > 0 ? .satisfied("space left") : .failed("the disk is full")
/// }
/// ```
public struct ConditionResult: Sendable {
    /// Satisfied, failed, undecided, or not known without asking a person.
    public enum Verdict: Sendable, Equatable {
        /// The condition holds.
        case satisfied
        /// The condition definitely does not hold.
        case failed
        /// Whether the condition holds could not be decided. It never counts as holding, and
        /// its negation never holds either.
        case undecided
        /// Could pass by asking (only meaningful while ``ConditionContext/allowsInteraction`` is true).
        case needsInteraction
    }

    /// The verdict.
    public var verdict: Verdict
    /// Why, in words a person can read.
    public var reason: String
    /// The underlying error, if one caused a failure or left the condition undecided.
    public var error: (any Error)?
    /// What the check found, for the dependency the condition produces to start from
    /// (``ProcedureCondition/makeDependency(for:after:)``): a capability's status read in the
    /// first phase, so its authorization does not read it again. Nil for most conditions; a
    /// reference, so that results stay small.
    public var finding: (any AnyObject & Sendable)?

    /// Creates a result.
    public init(verdict: Verdict, reason: String, error: (any Error)? = nil) {
        self.verdict = verdict
        self.reason = reason
        self.error = error
    }

    /// The condition holds.
    public static func satisfied(_ reason: String = "satisfied") -> ConditionResult {
        ConditionResult(verdict: .satisfied, reason: reason)
    }

    /// The condition definitely does not hold.
    public static func failed(_ reason: String, error: (any Error)? = nil) -> ConditionResult {
        ConditionResult(verdict: .failed, reason: reason, error: error)
    }

    /// Whether the condition holds could not be decided (an error, an unavailable backend).
    public static func undecided(_ reason: String, error: (any Error)? = nil) -> ConditionResult {
        ConditionResult(verdict: .undecided, reason: reason, error: error)
    }

    /// The condition could hold after its produced dependency asks.
    public static func needsInteraction(_ reason: String) -> ConditionResult {
        ConditionResult(verdict: .needsInteraction, reason: reason)
    }

    /// The condition could hold after its produced dependency asks, which starts from `finding`.
    public static func needsInteraction(_ reason: String, finding: some AnyObject & Sendable) -> ConditionResult {
        var result = ConditionResult(verdict: .needsInteraction, reason: reason)
        result.finding = finding
        return result
    }
}
