/// The answer of one condition.
public struct ConditionResult: Sendable {
    /// Satisfied, failed, or not known without asking a person.
    public enum Verdict: Sendable, Equatable {
        case satisfied
        case failed
        /// Could pass by asking (only meaningful while ``ConditionContext/mayInteractLater`` is true).
        case undetermined
    }

    /// The verdict.
    public var verdict: Verdict
    /// Why, in words a person can read.
    public var reason: String
    /// The underlying error, if one caused a failure.
    public var error: (any Error)?

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

    /// The condition does not hold.
    public static func failed(_ reason: String, error: (any Error)? = nil) -> ConditionResult {
        ConditionResult(verdict: .failed, reason: reason, error: error)
    }

    /// The condition could hold after its produced dependency asks.
    public static func undetermined(_ reason: String) -> ConditionResult {
        ConditionResult(verdict: .undetermined, reason: reason)
    }
}
