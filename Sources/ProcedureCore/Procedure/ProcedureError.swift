/// Errors the framework itself finishes procedures with.
public enum ProcedureError: Error, Sendable, CustomStringConvertible {
    /// The procedure was cancelled before it produced a value.
    case cancelled
    /// One or more conditions were not satisfied. The explanation holds every leaf and its reason.
    case conditionsNotSatisfied(ConditionExplanation)
    /// The procedure is on a dependency cycle; the names are the cycle's members, in order.
    case dependencyCycle([String])
    /// A ``TimeoutObserver`` cancelled the procedure after the given limit.
    case timedOut(after: Duration)
    /// A dependency whose output this procedure takes as input failed or was cancelled.
    case inputUnavailable(from: String, reason: (any Error)?)
    /// Children of a group failed; the errors are in the order the children finished.
    case childrenFailed([any Error])
    /// A result procedure finished without an output and without an error.
    case noOutput(String)

    public var description: String {
        switch self {
        case .cancelled:
            return "cancelled"
        case .conditionsNotSatisfied(let explanation):
            let failed = explanation.failedLeaves.map { "\($0.condition): \($0.reason)" }
            return "conditions not satisfied: " + failed.joined(separator: "; ")
        case .dependencyCycle(let names):
            return "dependency cycle: " + (names + names.prefix(1)).joined(separator: " -> ")
        case .timedOut(let limit):
            return "timed out after \(limit)"
        case .inputUnavailable(let source, let reason):
            if let reason { return "input from '\(source)' unavailable: \(reason)" }
            return "input from '\(source)' unavailable: it was cancelled"
        case .childrenFailed(let errors):
            return "\(errors.count) child procedure(s) failed: "
                + errors.map { String(describing: $0) }.joined(separator: "; ")
        case .noOutput(let name):
            return "'\(name)' finished without an output"
        }
    }
}
