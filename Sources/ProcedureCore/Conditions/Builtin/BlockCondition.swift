/// A condition made of a synchronous closure.
///
/// ```swift
/// let enoughSpace = BlockCondition(name: "enough free space") { _ in freeSpace() > 1 << 30 }
/// export.addCondition(enoughSpace)
/// ```
public struct BlockCondition: SynchronousCondition {
    // One shared reference keeps the value within an existential's inline buffer, so adding
    // the same condition to many procedures copies a pointer instead of boxing each copy.
    private final class Check: Sendable {
        let name: String
        let body: @Sendable (Procedure) throws -> ConditionResult
        init(name: String, body: @escaping @Sendable (Procedure) throws -> ConditionResult) {
            self.name = name
            self.body = body
        }
    }

    private let check: Check

    public var name: String { check.name }

    /// A condition satisfied when `check` returns true. A thrown error leaves it undecided (it
    /// never holds, and neither does its negation), with the error as reason.
    public init(name: String = "BlockCondition", _ check: @escaping @Sendable (Procedure) throws -> Bool) {
        self.check = Check(name: name) { procedure in
            try check(procedure) ? .satisfied() : .failed("the check returned false")
        }
    }

    /// A condition whose closure returns the full result. A thrown error leaves it undecided.
    ///
    /// Where a closure fits both forms (one that only throws), the Bool form is chosen, so no
    /// type annotation is needed; a closure returning a ``ConditionResult`` picks this one.
    @_disfavoredOverload
    public init(
        name: String = "BlockCondition", result check: @escaping @Sendable (Procedure) throws -> ConditionResult
    ) {
        self.check = Check(name: name, body: check)
    }

    public func evaluate(for procedure: Procedure, context: ConditionContext) -> ConditionResult {
        do {
            return try check.body(procedure)
        } catch {
            return .undecided("the check threw: \(error)", error: error)
        }
    }
}
