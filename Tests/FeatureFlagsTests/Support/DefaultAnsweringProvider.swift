import FeatureFlags

/// A test provider that answers every flag with the caller's default (reason `DEFAULT`), so a
/// test's own provider writes only what it is about: its initialization, its events, one type.
protocol DefaultAnsweringProvider: FeatureProvider {}

extension DefaultAnsweringProvider {
    func resolveBooleanEvaluation(_ key: String, default value: Bool, context: FlagEvaluationContext?)
        -> FlagEvaluationDetails<Bool>
    { .init(flagKey: key, value: value, reason: .default) }
    func resolveStringEvaluation(_ key: String, default value: String, context: FlagEvaluationContext?)
        -> FlagEvaluationDetails<String>
    { .init(flagKey: key, value: value, reason: .default) }
    func resolveIntegerEvaluation(_ key: String, default value: Int, context: FlagEvaluationContext?)
        -> FlagEvaluationDetails<Int>
    { .init(flagKey: key, value: value, reason: .default) }
    func resolveDoubleEvaluation(_ key: String, default value: Double, context: FlagEvaluationContext?)
        -> FlagEvaluationDetails<Double>
    { .init(flagKey: key, value: value, reason: .default) }
    func resolveObjectEvaluation(_ key: String, default value: FlagValue, context: FlagEvaluationContext?)
        -> FlagEvaluationDetails<FlagValue>
    { .init(flagKey: key, value: value, reason: .default) }
}
