/// A capability that cannot be made as described: a relative path where an absolute one is
/// needed, an unknown capability or group name, a port out of range. Raised when the
/// capability is created (or its policy loaded), never as a status, so a mistake can never
/// become an authorization.
public struct CapabilityConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, in words a person can act on.
    public var message: String

    /// Creates an error.
    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
