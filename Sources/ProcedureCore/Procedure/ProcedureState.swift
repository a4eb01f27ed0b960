/// Where a procedure is in its life.
///
/// States only move forward, in declaration order. ``finished`` is terminal.
public enum ProcedureState: Int, Sendable, Comparable, CustomStringConvertible {
    /// Created and configurable; not on a queue yet.
    case initialized
    /// On a queue, waiting for its dependencies (or for a suspended queue to resume).
    case pending
    /// Dependencies finished; conditions (and any dependencies they produce) are being evaluated.
    case evaluatingConditions
    /// Conditions passed; waiting for the exclusivity categories it asked for.
    case waitingForExclusivity
    /// Waiting for a free slot on its queue.
    case ready
    /// Its work body is running.
    case executing
    /// Its work is done; finish observers are being told.
    case finishing
    /// Done. Nothing changes it any more.
    case finished

    public static func < (lhs: ProcedureState, rhs: ProcedureState) -> Bool {
        lhs.rawValue < rhs.rawValue
    }

    public var description: String {
        switch self {
        case .initialized: "initialized"
        case .pending: "pending"
        case .evaluatingConditions: "evaluatingConditions"
        case .waitingForExclusivity: "waitingForExclusivity"
        case .ready: "ready"
        case .executing: "executing"
        case .finishing: "finishing"
        case .finished: "finished"
        }
    }
}
