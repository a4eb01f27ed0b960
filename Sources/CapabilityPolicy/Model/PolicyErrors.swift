public import ConfigurationFiles

/// Every problem found while loading a policy (`capctl validate` prints them all).
public struct PolicyErrors: Error, Sendable, Hashable, CustomStringConvertible {
    /// The problems, in file order.
    public var errors: [ConfigurationError]

    /// Collects `errors`.
    public init(errors: [ConfigurationError]) {
        self.errors = errors
    }

    public var description: String { errors.map(\.description).joined(separator: "\n") }
}
