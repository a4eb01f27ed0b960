/// Errors the framework itself finishes procedures with.
///
/// An error has a ``code`` (a set of well-known values that may grow: compare with `==`, and
/// give a `switch` a `default`) and the details that code carries.
public struct ProcedureError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        /// The code's name, stable across releases.
        public let name: String

        init(_ name: String) {
            self.name = name
        }

        /// The procedure was cancelled before it produced a value.
        public static let cancelled = Code("cancelled")
        /// One or more conditions did not hold; ``ProcedureError/explanation`` has every leaf and its reason.
        public static let conditionsNotSatisfied = Code("conditionsNotSatisfied")
        /// The procedure is on a dependency cycle; ``ProcedureError/procedures`` names its members, in order.
        public static let dependencyCycle = Code("dependencyCycle")
        /// A ``TimeoutObserver`` cancelled the procedure after ``ProcedureError/limit``.
        public static let timedOut = Code("timedOut")
        /// The dependency in ``ProcedureError/procedures`` whose output this procedure takes as
        /// input failed (``ProcedureError/underlying``) or was cancelled.
        public static let inputUnavailable = Code("inputUnavailable")
        /// Children of a group failed; ``ProcedureError/underlying`` has their errors in the order the
        /// children were added, and ``ProcedureError/procedures`` the children's names in the same
        /// order (when a group made the error).
        public static let childrenFailed = Code("childrenFailed")
        /// The group named in ``ProcedureError/procedures`` was cancelled (or its conditions failed)
        /// before this child finished; ``ProcedureError/underlying`` has the group's reason, if any.
        public static let groupCancelled = Code("groupCancelled")
        /// A result procedure finished without an output and without an error.
        public static let noOutput = Code("noOutput")
        /// The procedure in ``ProcedureError/procedures`` was used against the rules, as
        /// ``ProcedureError/detail`` says: configured after it was enqueued, or asked to produce
        /// while not on a queue.
        public static let misuse = Code("misuse")

        public var description: String { name }
    }

    /// What went wrong.
    public let code: Code
    /// The evaluation, for ``Code/conditionsNotSatisfied``.
    public let explanation: ConditionExplanation?
    /// The procedures concerned, by name: a cycle's members, the input's source, the procedure without output.
    public let procedures: [String]
    /// The time limit, for ``Code/timedOut``.
    public let limit: Duration?
    /// The errors behind this one: the failed children, or the input source's error.
    public let underlying: [any Error]
    /// What was done wrong, for ``Code/misuse``.
    public let detail: String?

    private init(
        _ code: Code, explanation: ConditionExplanation? = nil, procedures: [String] = [], limit: Duration? = nil,
        underlying: [any Error] = [], detail: String? = nil
    ) {
        self.code = code
        self.explanation = explanation
        self.procedures = procedures
        self.limit = limit
        self.underlying = underlying
        self.detail = detail
    }

    /// The procedure was cancelled before it produced a value.
    public static let cancelled = ProcedureError(.cancelled)

    /// Conditions did not hold, as `explanation` says.
    public static func conditionsNotSatisfied(_ explanation: ConditionExplanation) -> ProcedureError {
        ProcedureError(.conditionsNotSatisfied, explanation: explanation)
    }

    /// A dependency cycle through `members`, in order.
    public static func dependencyCycle(_ members: [String]) -> ProcedureError {
        ProcedureError(.dependencyCycle, procedures: members)
    }

    /// Cancelled by a timeout after `limit`.
    public static func timedOut(after limit: Duration) -> ProcedureError {
        ProcedureError(.timedOut, limit: limit)
    }

    /// The input from `source` is missing: it failed with `reason`, or (nil) was cancelled.
    public static func inputUnavailable(from source: String, reason: (any Error)?) -> ProcedureError {
        ProcedureError(.inputUnavailable, procedures: [source], underlying: reason.map { [$0] } ?? [])
    }

    /// Children failed with `errors`.
    public static func childrenFailed(_ errors: [any Error]) -> ProcedureError {
        ProcedureError(.childrenFailed, underlying: errors)
    }

    /// Children failed with `errors`, the child named `children[i]` with `errors[i]`.
    static func childrenFailed(_ errors: [any Error], children: [String]) -> ProcedureError {
        ProcedureError(.childrenFailed, procedures: children, underlying: errors)
    }

    /// A child's group, `group`, was cancelled with `reason` before the child finished.
    public static func groupCancelled(_ group: String, reason: (any Error)?) -> ProcedureError {
        ProcedureError(.groupCancelled, procedures: [group], underlying: reason.map { [$0] } ?? [])
    }

    /// For an input that was unavailable because its own source's input was, and so on: the
    /// first source in the chain that failed or was cancelled, and its error.
    var rootOfUnavailableInput: (source: String, error: (any Error)?)? {
        guard code == .inputUnavailable else { return nil }
        var current = self
        while let reason = current.underlying.first as? ProcedureError, reason.code == .inputUnavailable {
            current = reason
        }
        return (current.procedures.first ?? "a dependency", current.underlying.first)
    }

    /// `name` finished without an output and without an error.
    public static func noOutput(_ name: String) -> ProcedureError {
        ProcedureError(.noOutput, procedures: [name])
    }

    /// `name` was misused, as `detail` says.
    public static func misuse(_ name: String, _ detail: String) -> ProcedureError {
        ProcedureError(.misuse, procedures: [name], detail: detail)
    }

    /// Equal when the code, the procedures, the limit and the words are.
    public static func == (lhs: ProcedureError, rhs: ProcedureError) -> Bool {
        lhs.code == rhs.code && lhs.procedures == rhs.procedures && lhs.limit == rhs.limit
            && lhs.description == rhs.description
    }

    public var description: String {
        switch code {
        case .cancelled:
            return "cancelled"
        case .conditionsNotSatisfied:
            let failed = explanation?.failedLeaves.map { "\($0.condition): \($0.reason)" } ?? []
            return "conditions not satisfied: " + failed.joined(separator: "; ")
        case .dependencyCycle:
            return "dependency cycle: " + (procedures + procedures.prefix(1)).joined(separator: " -> ")
        case .timedOut:
            return "timed out after \(limit.map { "\($0)" } ?? "its limit")"
        case .inputUnavailable:
            let source = procedures.first ?? "a dependency"
            // A chain of steps each missing its input names where it began, once.
            guard let (root, error) = rootOfUnavailableInput, root != source else {
                if let reason = underlying.first { return "input from '\(source)' unavailable: \(reason)" }
                return "input from '\(source)' unavailable: it was cancelled"
            }
            let cause = error.map { "'\(root)' failed: \($0)" } ?? "'\(root)' was cancelled"
            return "input from '\(source)' unavailable, because \(cause)"
        case .childrenFailed:
            return childrenFailedDescription
        case .groupCancelled:
            let group = procedures.first ?? "its group"
            return "its group '\(group)' was cancelled" + (underlying.first.map { ": \($0)" } ?? "")
        case .noOutput:
            return "'\(procedures.first ?? "")' finished without an output"
        case .misuse:
            return "misuse of '\(procedures.first ?? "")': \(detail ?? "")"
        default:
            return code.name
        }
    }

    /// Each failure once: a child whose input was missing because another child failed is named
    /// with the others like it, not given the whole chain again.
    private var childrenFailedDescription: String {
        guard procedures.count == underlying.count, !procedures.isEmpty else {
            return "\(underlying.count) child procedure(s) failed: "
                + underlying.map { String(describing: $0) }.joined(separator: "; ")
        }
        var causes: [String] = []
        var waitingOn: [(root: String, children: [String])] = []
        for (child, error) in zip(procedures, underlying) {
            if let root = (error as? ProcedureError)?.rootOfUnavailableInput?.source, procedures.contains(root) {
                if let index = waitingOn.firstIndex(where: { $0.root == root }) {
                    waitingOn[index].children.append(child)
                } else {
                    waitingOn.append((root, [child]))
                }
            } else {
                causes.append("'\(child)' failed: \(error)")
            }
        }
        let skipped = waitingOn.map { root, children in
            children.map { "'\($0)'" }.joined(separator: ", ") + " did not run without the output of '\(root)'"
        }
        return (causes + skipped).joined(separator: "; ")
    }
}
