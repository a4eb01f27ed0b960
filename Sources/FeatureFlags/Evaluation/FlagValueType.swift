/// A Swift type a flag can be evaluated as, with how to read it from a variant's value.
protocol FlagValueType {
    /// The JSON type of variants this reads ("boolean", "string", "number", "object").
    static var flagType: String { get }
    init?(flagValue: FlagValue)
}

extension Bool: FlagValueType {
    static var flagType: String { "boolean" }
    init?(flagValue: FlagValue) {
        guard case .bool(let value) = flagValue else { return nil }
        self = value
    }
}

extension String: FlagValueType {
    static var flagType: String { "string" }
    init?(flagValue: FlagValue) {
        guard case .string(let value) = flagValue else { return nil }
        self = value
    }
}

extension Int: FlagValueType {
    static var flagType: String { "number" }
    init?(flagValue: FlagValue) {
        guard let value = flagValue.integerValue else { return nil }
        self = value
    }
}

extension Double: FlagValueType {
    static var flagType: String { "number" }
    init?(flagValue: FlagValue) {
        guard case .number(let value) = flagValue else { return nil }
        self = value
    }
}

extension FlagValue: FlagValueType {
    static var flagType: String { "object" }
    init?(flagValue: FlagValue) {
        switch flagValue {
        case .list, .structure: self = flagValue
        default: return nil
        }
    }
}
