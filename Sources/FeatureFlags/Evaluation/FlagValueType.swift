/// A Swift type a flag can be evaluated as, with how to read it from a variant's value.
protocol FlagValueType {
    /// What the caller asked for, for messages ("a boolean", "an integer").
    static var requested: String { get }
    init?(flagValue: FlagValue)
}

extension Bool: FlagValueType {
    static var requested: String { "a boolean" }
    init?(flagValue: FlagValue) {
        guard case .bool(let value) = flagValue else { return nil }
        self = value
    }
}

extension String: FlagValueType {
    static var requested: String { "a string" }
    init?(flagValue: FlagValue) {
        guard case .string(let value) = flagValue else { return nil }
        self = value
    }
}

extension Int: FlagValueType {
    static var requested: String { "an integer" }
    init?(flagValue: FlagValue) {
        guard let value = flagValue.integerValue else { return nil }
        self = value
    }
}

extension Double: FlagValueType {
    static var requested: String { "a number" }
    init?(flagValue: FlagValue) {
        guard case .number(let value) = flagValue else { return nil }
        self = value
    }
}

extension FlagValue: FlagValueType {
    static var requested: String { "an object" }
    init?(flagValue: FlagValue) {
        switch flagValue {
        case .list, .structure: self = flagValue
        default: return nil
        }
    }
}
