/// A Swift type a flag can be evaluated as, with how to read it from a variant's value:
/// `Bool`, `String`, `Int` (a number without a fraction), `Double`, and ``FlagValue`` for an
/// object (a structure or a list; OpenFeature's object flag).
public protocol FlagValueType: Sendable {
    /// What the caller asked for, for messages ("a boolean", "an integer").
    static var requested: String { get }
    /// The value, or nil when the variant's value is not of this type (a type mismatch).
    init?(flagValue: FlagValue)
}

extension Bool: FlagValueType {
    public static var requested: String { "a boolean" }
    public init?(flagValue: FlagValue) {
        guard case .bool(let value) = flagValue else { return nil }
        self = value
    }
}

extension String: FlagValueType {
    public static var requested: String { "a string" }
    public init?(flagValue: FlagValue) {
        guard case .string(let value) = flagValue else { return nil }
        self = value
    }
}

extension Int: FlagValueType {
    public static var requested: String { "an integer" }
    public init?(flagValue: FlagValue) {
        guard let value = flagValue.integerValue else { return nil }
        self = value
    }
}

extension Double: FlagValueType {
    public static var requested: String { "a number" }
    public init?(flagValue: FlagValue) {
        guard case .number(let value) = flagValue else { return nil }
        self = value
    }
}

extension FlagValue: FlagValueType {
    public static var requested: String { "an object" }
    public init?(flagValue: FlagValue) {
        switch flagValue {
        case .list, .structure: self = flagValue
        default: return nil
        }
    }
}
