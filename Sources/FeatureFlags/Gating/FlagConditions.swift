import Capabilities
import ProcedureCore

/// A condition satisfied while a Boolean flag is on, failed while it is off or disabled, and
/// undecided when it cannot be evaluated (unknown, not Boolean, targeting failed): then
/// neither it nor its negation holds.
public struct FlagIsOn: SynchronousCondition {
    /// The flag's key.
    public let key: String
    private let store: FlagStore
    private let context: FlagEvaluationContext?

    /// A condition on flag `key` in `store`, evaluated with `context` laid over the store's.
    public init(_ key: String, in store: FlagStore, context: FlagEvaluationContext? = nil) {
        self.key = key
        self.store = store
        self.context = context
    }

    public var name: String { "FlagIsOn(\(key))" }

    public func evaluate(for procedure: Procedure, context: ConditionContext) -> ConditionResult {
        let details = store.booleanDetails(key, default: false, context: self.context)
        if details.reason == .error { return .undecided(details.description) }
        return details.value ? .satisfied(details.description) : .failed(details.description)
    }
}

/// A condition satisfied while a flag evaluates to a given value; undecided when the flag cannot
/// be evaluated.
public struct FlagEquals: SynchronousCondition {
    /// The flag's key.
    public let key: String
    /// The value it must have.
    public let expected: FlagValue
    private let store: FlagStore
    private let context: FlagEvaluationContext?

    /// A condition that flag `key` in `store` equals `expected`.
    public init(_ key: String, _ expected: FlagValue, in store: FlagStore, context: FlagEvaluationContext? = nil) {
        self.key = key
        self.expected = expected
        self.store = store
        self.context = context
    }

    public var name: String { "FlagEquals(\(key) == \(expected))" }

    public func evaluate(for procedure: Procedure, context: ConditionContext) -> ConditionResult {
        let details = store.valueDetails(key, default: .null, context: self.context)
        if details.reason == .error { return .undecided(details.description) }
        if details.variant != nil, details.value == expected { return .satisfied(details.description) }
        return .failed(details.description)
    }
}
