/// A Swift type a flag can be evaluated as, with how to read it from a variant's value.
package protocol FlagValueType {
    /// What the caller asked for, for messages ("a boolean", "an integer").
    static var requested: String { get }
    init?(flagValue: FlagValue)
}

extension Bool: FlagValueType {
    package static var requested: String { "a boolean" }
    package init?(flagValue: FlagValue) {
        guard case .bool(let value) = flagValue else { return nil }
        self = value
    }
}

extension String: FlagValueType {
    package static var requested: String { "a string" }
    package init?(flagValue: FlagValue) {
        guard case .string(let value) = flagValue else { return nil }
        self = value
    }
}

extension Int: FlagValueType {
    package static var requested: String { "an integer" }
    package init?(flagValue: FlagValue) {
        guard let value = flagValue.integerValue else { return nil }
        self = value
    }
}

extension Double: FlagValueType {
    package static var requested: String { "a number" }
    package init?(flagValue: FlagValue) {
        guard case .number(let value) = flagValue else { return nil }
        self = value
    }
}

extension FlagValue: FlagValueType {
    package static var requested: String { "an object" }
    package init?(flagValue: FlagValue) {
        switch flagValue {
        case .list, .structure: self = flagValue
        default: return nil
        }
    }
}
