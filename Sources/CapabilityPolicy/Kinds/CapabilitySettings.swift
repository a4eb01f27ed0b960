public import FeatureFlags

/// The settings of one declaration, checked against their kind's types.
///
/// ```swift
/// let settings = CapabilitySettings(["policy": .string("backups"), "ttl": .duration(.seconds(600))])
/// print(settings.string("policy") ?? "", settings.duration("ttl") ?? .zero)
/// ```
public struct CapabilitySettings: Sendable, Equatable {
    /// A checked value.
    public enum Value: Sendable, Equatable {
        /// A setting of type ``CapabilitySetting/ValueType/string``, ``CapabilitySetting/ValueType/absolutePath``,
        /// ``CapabilitySetting/ValueType/choice(_:)`` or ``CapabilitySetting/ValueType/pattern(_:)``.
        case string(String)
        /// A setting of type ``CapabilitySetting/ValueType/duration`` (`5m`, `30s`).
        case duration(Duration)
        /// A setting of type ``CapabilitySetting/ValueType/boolean``.
        case boolean(Bool)
        /// A setting of type ``CapabilitySetting/ValueType/integer(_:)``.
        case integer(Int)
        /// A setting of type ``CapabilitySetting/ValueType/choices(_:)``.
        case strings([String])
        /// A setting of type ``CapabilitySetting/ValueType/stringMap``.
        case stringMap([String: String])
        /// A setting of type ``CapabilitySetting/ValueType/anyValue``: any value the file holds.
        case any(FlagValue)
    }

    /// The values given, by key.
    public var values: [String: Value]

    /// Settings with `values`.
    public init(_ values: [String: Value] = [:]) {
        self.values = values
    }

    /// Every setting as one canonical text (compact JSON, keys sorted), which changes whenever
    /// any setting does: what a record kept under these settings is tied to. Written by hand,
    /// not by `String(describing:)`, whose reflection cost a third of a `capctl check`.
    package var fingerprint: String {
        let members = values.sorted { $0.key < $1.key }.map { key, value in
            FlagValue.string(key).description + ":" + value.canonicalText
        }
        return "{" + members.joined(separator: ",") + "}"
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

extension CapabilitySettings.Value {
    /// The value as compact JSON, tagged with its type where JSON would not tell it.
    fileprivate var canonicalText: String {
        switch self {
        case .string(let value): FlagValue.string(value).description
        case .duration(let value):
            "{\"duration\":[\(value.components.seconds),\(value.components.attoseconds)]}"
        case .boolean(let value): value ? "true" : "false"
        case .integer(let value): "{\"integer\":\(value)}"
        case .strings(let values): FlagValue.list(values.map(FlagValue.string)).description
        case .stringMap(let values): FlagValue.structure(values.mapValues(FlagValue.string)).description
        case .any(let value): "{\"any\":\(value)}"
        }
    }
}
