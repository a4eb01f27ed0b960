/// One setting a capability kind takes: its key, its type and whether it must be given.
///
/// ```swift
/// let settings = [
///     CapabilitySetting("policy", .string, required: true, summary: "The Vault policy to hold."),
///     CapabilitySetting("ttl", .duration, summary: "How long a token lasts."),
/// ]
/// print(settings.map(\.key))
/// ```
public struct CapabilitySetting: Sendable {
    /// The types a setting can have; each is checked when a policy loads, with the position of a mistake.
    public enum ValueType: Sendable, Equatable {
        /// A non-empty string.
        case string
        /// A non-empty string that must be an absolute path (checked by the kind; the schema says so).
        case absolutePath
        /// A duration: `300ms`, `30s`, `5m`, `1h`, or a number of seconds; at most 366 days.
        case duration
        /// `true` or `false`.
        case boolean
        /// A whole number in the range.
        case integer(ClosedRange<Int>)
        /// One of these strings.
        case choice([String])
        /// A non-empty list of these strings.
        case choices([String])
        /// A string matching this regular expression (for the schema; the kind checks it).
        case pattern(String)
        /// A mapping of names to strings (details passed to polkit, for example).
        case stringMap
        /// Any value (a flag value to compare with, for example).
        case anyValue
    }

    /// The key in the declaration.
    public var key: String
    /// Its type.
    public var type: ValueType
    /// Whether a declaration must give it.
    public var isRequired: Bool
    /// One sentence for the schema.
    public var summary: String

    /// Describes a setting.
    public init(_ key: String, _ type: ValueType, required isRequired: Bool = false, summary: String = "") {
        self.key = key
        self.type = type
        self.isRequired = isRequired
        self.summary = summary
    }
}
