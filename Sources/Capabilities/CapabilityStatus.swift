/// The state of a capability, in one vocabulary shared by every backend.
public struct CapabilityStatus: Sendable, Equatable, CustomStringConvertible {
    /// The four states a capability can be in.
    public enum Kind: String, Sendable, Equatable, CaseIterable {
        /// Granted now.
        case authorized
        /// Refused, and asking will not change that.
        case denied
        /// Not granted yet, but could be by asking (for example a password prompt).
        case notDetermined
        /// The backend or the resource does not exist here.
        case unavailable
    }

    /// Which state.
    public var kind: Kind
    /// Why, in words a person can read.
    public var reason: String

    /// Creates a status.
    public init(_ kind: Kind, reason: String) {
        self.kind = kind
        self.reason = reason
    }

    public var description: String { "\(kind.rawValue): \(reason)" }
}
