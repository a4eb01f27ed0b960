/// How soon a procedure should run, among the ready procedures of its queue: a user-initiated
/// one is taken before a utility one (the default), which is taken before a background one.
///
/// ```swift
/// let refresh = BlockProcedure(name: "refresh") {}
/// refresh.priority = .userInitiated
/// queue.addProcedure(refresh)
/// ```
///
/// Priority orders only what is ready: it does not overtake dependencies, conditions or
/// exclusivity, and does not stop work already running.
public enum ProcedurePriority: Int, Sendable, Comparable, CaseIterable, CustomStringConvertible {
    /// Work nobody waits for (a cache clean-up, a prefetch): taken last.
    case background
    /// Work that is expected but not watched (the default).
    case utility
    /// Work someone is waiting for: taken first.
    case userInitiated

    public static func < (lhs: ProcedurePriority, rhs: ProcedurePriority) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String {
        switch self {
        case .background: "background"
        case .utility: "utility"
        case .userInitiated: "userInitiated"
        }
    }
}
