public import FeatureFlags

/// The settings of one declaration, checked against their kind's types.
public struct CapabilitySettings: Sendable, Equatable {
    /// A checked value.
    public enum Value: Sendable, Equatable {
        case string(String)
        case duration(Duration)
        case boolean(Bool)
        case integer(Int)
        case strings([String])
        case stringMap([String: String])
        case any(FlagValue)
    }

    /// The values given, by key.
    public var values: [String: Value]

    /// Settings with `values`.
    public init(_ values: [String: Value] = [:]) {
        self.values = values
    }

    /// The value of `key`, if given.
    public subscript(key: String) -> Value? { values[key] }

    /// The string `key`, if given as one.
    public func string(_ key: String) -> String? {
        if case .string(let value)? = values[key] { return value }
        return nil
    }

    /// The duration `key`, if given.
    public func duration(_ key: String) -> Duration? {
        if case .duration(let value)? = values[key] { return value }
        return nil
    }

    /// The Boolean `key`, if given.
    public func boolean(_ key: String) -> Bool? {
        if case .boolean(let value)? = values[key] { return value }
        return nil
    }

    /// The whole number `key`, if given.
    public func integer(_ key: String) -> Int? {
        if case .integer(let value)? = values[key] { return value }
        return nil
    }

    /// The list of strings `key`, if given.
    public func strings(_ key: String) -> [String]? {
        if case .strings(let value)? = values[key] { return value }
        return nil
    }

    /// The mapping of strings `key`, if given.
    public func stringMap(_ key: String) -> [String: String]? {
        if case .stringMap(let value)? = values[key] { return value }
        return nil
    }

    /// The value `key` as given, if any.
    public func value(_ key: String) -> FlagValue? {
        if case .any(let value)? = values[key] { return value }
        return nil
    }
}
