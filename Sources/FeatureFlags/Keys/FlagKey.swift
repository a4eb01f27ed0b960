/// A flag's key with the type of its variants, so that asking for a flag that does not exist, or
/// for the wrong type, is a compile error. The `GenerateFlagAccessors` build plugin writes one
/// per flag of a package's flag files (`FlagKeys.newExport`); one can also be written by hand.
///
/// ```swift
/// let newExport = FlagKey<Bool>("new-export")  // or FlagKeys.newExport, from the build plugin
/// if flags.value(newExport, default: false) { enableNewExport() }
/// ```
public struct FlagKey<Value: Sendable>: Sendable, Hashable, CustomStringConvertible {
    /// The key in the flag file.
    public let name: String

    /// A key for the flag `name`.
    public init(_ name: String) {
        self.name = name
    }

    public var description: String { name }
}

extension FlagStore {
    // Concrete overloads for the four scalar types, as for string keys: a generic call from
    // another module is not specialized (twice the time of a Boolean evaluation).

    /// Evaluates a Boolean flag by its typed key.
    public func value(_ key: FlagKey<Bool>, default defaultValue: Bool, context: FlagEvaluationContext? = nil) -> Bool {
        value(key.name, default: defaultValue, context: context)
    }

    /// Evaluates a string flag by its typed key.
    public func value(_ key: FlagKey<String>, default defaultValue: String, context: FlagEvaluationContext? = nil)
        -> String
    { value(key.name, default: defaultValue, context: context) }

    /// Evaluates an integer flag by its typed key.
    public func value(_ key: FlagKey<Int>, default defaultValue: Int, context: FlagEvaluationContext? = nil) -> Int {
        value(key.name, default: defaultValue, context: context)
    }

    /// Evaluates a number flag by its typed key.
    public func value(_ key: FlagKey<Double>, default defaultValue: Double, context: FlagEvaluationContext? = nil)
        -> Double
    { value(key.name, default: defaultValue, context: context) }

    /// Evaluates a flag by its typed key.
    public func value<Value: FlagValueType>(
        _ key: FlagKey<Value>, default defaultValue: Value, context: FlagEvaluationContext? = nil
    ) -> Value {
        value(key.name, default: defaultValue, context: context)
    }

    /// Evaluates a flag by its typed key, with details.
    public func evaluation<Value: FlagValueType>(
        _ key: FlagKey<Value>, default defaultValue: Value, context: FlagEvaluationContext? = nil
    ) -> FlagEvaluationDetails<Value> {
        evaluation(key.name, default: defaultValue, context: context)
    }
}
