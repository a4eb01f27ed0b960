public import FeatureFlags

/// Evaluation contexts a library user's callers could send: empty, huge and non-finite
/// numbers, odd Unicode, deep structures.
public enum FuzzContexts {
    public static let all: [FlagEvaluationContext] = [
        FlagEvaluationContext(),
        FlagEvaluationContext(
            targetingKey: "user-1",
            attributes: [
                "email": .string("zoe\u{0308}@example.com"), "age": .number(1e300), "tier": .string(""),
                "version": .string("v1.2.3-rc.1+build"), "n": .number(-0.0), "list": .list([.number(9e15), .null]),
            ]),
        FlagEvaluationContext(
            targetingKey: "",
            attributes: [
                "age": .number(.infinity), "email": .number(.nan), "version": .number(2),
                "nested": .structure(["a": .structure(["b": .list([.string("\u{1F600}")])])]),
            ]),
    ]
}
