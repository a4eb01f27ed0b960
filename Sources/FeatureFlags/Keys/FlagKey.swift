/// A flag's key with the type of its variants, so that asking for a flag that does not exist, or
/// for the wrong type, is a compile error. The `GenerateFlagAccessors` build plugin writes one
/// per flag of a package's flag files (`FlagKeys.newExport`); one can also be written by hand.
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
    /// Evaluates a Boolean flag by its typed key.
    public func value(_ key: FlagKey<Bool>, default defaultValue: Bool, context: FlagEvaluationContext? = nil) -> Bool {
        boolean(key.name, default: defaultValue, context: context)
    }

    /// Evaluates a string flag by its typed key.
    public func value(_ key: FlagKey<String>, default defaultValue: String, context: FlagEvaluationContext? = nil)
        -> String
    {
        string(key.name, default: defaultValue, context: context)
    }

    /// Evaluates an integer flag by its typed key.
    public func value(_ key: FlagKey<Int>, default defaultValue: Int, context: FlagEvaluationContext? = nil) -> Int {
        integer(key.name, default: defaultValue, context: context)
    }

    /// Evaluates a floating-point flag by its typed key.
    public func value(_ key: FlagKey<Double>, default defaultValue: Double, context: FlagEvaluationContext? = nil)
        -> Double
    {
        double(key.name, default: defaultValue, context: context)
    }
}
