/// Whether a capability's backend exists on this system at all.
///
/// Availability is cheap to read and never changes within a process (a missing PAM library,
/// a kernel without a feature). A capability that is unavailable reports the
/// ``CapabilityStatus/Kind/unavailable`` status, and gates on it fail.
public enum CapabilityAvailability: Sendable, Hashable, CustomStringConvertible {
    /// The backend exists.
    case available
    /// The backend does not exist here, and why.
    case unavailable(reason: String)

    /// True for ``available``.
    public var isAvailable: Bool {
        if case .available = self { return true }
        return false
    }

    public var description: String {
        switch self {
        case .available: return "available"
        case .unavailable(let reason): return "unavailable: \(reason)"
        }
    }
}
