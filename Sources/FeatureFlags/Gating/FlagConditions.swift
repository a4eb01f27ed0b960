import Capabilities
import ProcedureCore

/// A condition satisfied while a Boolean flag is on. Anything else (off, disabled, unknown,
/// not Boolean, failing to evaluate) fails it, with the evaluation's details as reason.
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
        if details.value, details.reason != .error { return .satisfied(details.description) }
        return .failed(details.description)
    }
}

/// A condition satisfied while a flag evaluates to a given value.
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
        if details.reason != .error, details.variant != nil, details.value == expected { return .satisfied(details.description) }
        return .failed(details.description)
    }
}
