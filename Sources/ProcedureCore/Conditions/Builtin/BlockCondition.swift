/// A condition made of a synchronous closure.
public struct BlockCondition: SynchronousCondition {
    public let name: String
    private let check: @Sendable (Procedure) throws -> ConditionResult

    /// A condition satisfied when `check` returns true. A thrown error fails it, with the error as reason.
    public init(name: String = "BlockCondition", _ check: @escaping @Sendable (Procedure) throws -> Bool) {
        self.name = name
        self.check = { procedure in
            try check(procedure) ? .satisfied() : .failed("the check returned false")
        }
    }

    /// A condition whose closure returns the full result. A thrown error fails it.
    public init(name: String = "BlockCondition", result check: @escaping @Sendable (Procedure) throws -> ConditionResult) {
        self.name = name
        self.check = check
    }

    public func evaluate(for procedure: Procedure, context: ConditionContext) -> ConditionResult {
        do {
            return try check(procedure)
        } catch {
            return .failed("the check threw: \(error)", error: error)
        }
    }
}
