/// Why a gate on a capability failed. Carried by the condition failure of ``AuthorizedFor``.
public enum CapabilityError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The capability's backend or resource does not exist here.
    case unavailable(capability: String, status: CapabilityStatus)
    /// The status does not meet the requirement.
    case unauthorized(capability: String, status: CapabilityStatus, requirement: String)

    /// The status that caused the failure.
    public var status: CapabilityStatus {
        switch self {
        case .unavailable(_, let status), .unauthorized(_, let status, _): return status
        }
    }

    public var description: String {
        switch self {
        case .unavailable(let capability, let status):
            return "\(capability) is unavailable: \(status.reason)"
        case .unauthorized(let capability, let status, let requirement):
            return "\(capability) is not \(requirement) (\(status))"
        }
    }
}
