/// The state of a capability, in one vocabulary shared by every backend.
///
/// A status is a fact read at one moment: whether the capability is granted, why, and (for
/// capabilities that grant in degrees, such as file access) what exactly is granted. Whether a
/// status is good enough for a given need is decided by a ``CapabilityRequirement``.
public struct CapabilityStatus: Sendable, Hashable, CustomStringConvertible {
    /// The four states a capability can be in.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// Granted now.
        case authorized
        /// Refused, and asking will not change that.
        case denied
        /// Not granted yet, but could be by asking (for example a password prompt).
        case notDetermined
        /// The backend or the resource does not exist here, or the status could not be read.
        case unavailable
    }

    /// Which state.
    public var kind: Kind
    /// Why, in words a person can read.
    public var reason: String
    /// What an authorized status grants, in the capability's own terms (for file access:
    /// `read`, `write`, `execute`). Empty for capabilities that are all or nothing.
    public var grants: Set<String>

    /// Creates a status.
    public init(_ kind: Kind, reason: String, grants: Set<String> = []) {
        self.kind = kind
        self.reason = reason
        self.grants = grants
    }

    /// An authorized status.
    public static func authorized(_ reason: String, grants: Set<String> = []) -> CapabilityStatus {
        CapabilityStatus(.authorized, reason: reason, grants: grants)
    }

    /// A denied status.
    public static func denied(_ reason: String) -> CapabilityStatus {
        CapabilityStatus(.denied, reason: reason)
    }

    /// A status that asking could change.
    public static func notDetermined(_ reason: String) -> CapabilityStatus {
        CapabilityStatus(.notDetermined, reason: reason)
    }

    /// A status for a backend or resource that does not exist here.
    public static func unavailable(_ reason: String) -> CapabilityStatus {
        CapabilityStatus(.unavailable, reason: reason)
    }

    /// The status that stands for an error met while determining a status. It is
    /// ``Kind/unavailable``, not denied: nothing was decided, so a gate on it, or on its
    /// negation, never holds.
    public static func failure(_ error: any Error) -> CapabilityStatus {
        CapabilityStatus(.unavailable, reason: "could not determine the status: \(error)")
    }

    /// True when the kind is ``Kind/authorized``.
    public var isAuthorized: Bool { kind == .authorized }

    public var description: String {
        let granted = grants.isEmpty ? "" : " [" + grants.sorted().joined(separator: ", ") + "]"
        return "\(kind.rawValue)\(granted): \(reason)"
    }
}
