import Capabilities
public import ProcedureCore

/// A condition satisfied while a Boolean flag is on, failed while it is off or disabled, and
/// undecided when it cannot be evaluated (unknown, not Boolean, broken, provider not ready):
/// then neither it nor its negation holds.
///
/// ```swift
/// export.addCondition(FlagIsOn("new-export", in: flags))
/// ```
public struct FlagIsOn: SynchronousCondition {
    /// The flag's key.
    public let key: String
    private let evaluate: @Sendable () -> FlagEvaluationDetails<Bool>

    /// A condition on flag `key` in `store`, evaluated with `context` laid over the store's.
    public init(_ key: String, in store: FlagStore, context: FlagEvaluationContext? = nil) {
        self.key = key
        evaluate = { store.evaluation(key, default: false, context: context) }
    }

    /// A condition on flag `key` evaluated through `client`, with its provider, context and hooks.
    public init(_ key: String, in client: FlagClient, context: FlagEvaluationContext? = nil) {
        self.key = key
        evaluate = { client.booleanDetails(key, default: false, context: context) }
    }

    public var name: String { "FlagIsOn(\(key))" }

    public func evaluate(for procedure: Procedure, context: ConditionContext) -> ConditionResult {
        let details = evaluate()
        if details.reason == .error { return .undecided(details.description) }
        return details.value ? .satisfied(details.description) : .failed(details.description)
    }
}

/// A condition satisfied while a flag evaluates to a given value; undecided when the flag cannot
/// be evaluated.
///
/// ```swift
/// export.addCondition(FlagEquals("export-format", "parquet", in: flags))
/// ```
public struct FlagEquals: SynchronousCondition {
    /// The flag's key.
    public let key: String
    /// The value it must have.
    public let expected: FlagValue
    private let evaluate: @Sendable () -> FlagEvaluationDetails<FlagValue>

    /// A condition that flag `key` in `store` equals `expected`.
    public init(_ key: String, _ expected: FlagValue, in store: FlagStore, context: FlagEvaluationContext? = nil) {
        self.key = key
        self.expected = expected
        evaluate = { store.valueDetails(key, default: .null, context: context) }
    }

    /// A condition that flag `key`, evaluated through `client` as the type of `expected`, equals it.
    public init(_ key: String, _ expected: FlagValue, in client: FlagClient, context: FlagEvaluationContext? = nil) {
        self.key = key
        self.expected = expected
        evaluate = {
            switch expected {
            case .bool: return client.booleanDetails(key, default: false, context: context).map(FlagValue.bool)
            case .string: return client.stringDetails(key, default: "", context: context).map(FlagValue.string)
            case .number: return client.doubleDetails(key, default: .nan, context: context).map(FlagValue.number)
            case .null, .list, .structure, .date: return client.objectDetails(key, default: .null, context: context)
            }
        }
    }

    public var name: String { "FlagEquals(\(key) == \(expected))" }

    public func evaluate(for procedure: Procedure, context: ConditionContext) -> ConditionResult {
        let details = evaluate()
        if details.reason == .error { return .undecided(details.description) }
        // Another type can never be equal: undecided, so `Negated` cannot turn it into a pass.
        if details.variant != nil, details.value.typeName != expected.typeName {
            return .undecided(
                "\(key) is \(details.value.describedType) (\(details.value)), compared with \(expected.describedType) (\(expected))"
            )
        }
        if details.variant != nil, JSONLogicSemantics.strictEquals(details.value, expected) {
            return .satisfied(details.description)
        }
        return .failed(details.description)
    }
}
