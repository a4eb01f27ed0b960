/// Why a gate on a capability did not hold. Carried by the condition failure of ``AuthorizedFor``.
///
/// An error has a ``code`` (a set of well-known values that may grow: compare with `==`, and
/// give a `switch` a `default`), the capability, and the status that decided it.
public struct CapabilityError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure.
    ///
    /// ```swift
    /// let refused = CapabilityError(
    ///     .unauthorized, capability: "vault:backups", status: .denied("policy revoked"), requirement: "authorized")
    /// print(refused.code == .unauthorized)
    /// ```
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        /// The code's name, stable across releases.
        public let name: String

        /// A code of a capability's own; prefer the predefined ones where they fit.
        public init(_ name: String) {
            self.name = name
        }

        /// The backend or resource does not exist here, or the status could not be read: undecided.
        public static let unavailable = Code("unavailable")
        /// The status does not meet the requirement: failed.
        public static let unauthorized = Code("unauthorized")

        public var description: String { name }
    }

    /// What kind of failure.
    public let code: Code
    /// The capability's name.
    public let capability: String
    /// The status that caused the failure.
    public let status: CapabilityStatus
    /// The requirement that was not met, for ``Code/unauthorized``.
    public let requirement: String?

    /// Creates an error.
    public init(_ code: Code, capability: String, status: CapabilityStatus, requirement: String? = nil) {
        self.code = code
        self.capability = capability
        self.status = status
        self.requirement = requirement
    }

    /// The capability's backend or resource does not exist here (or its status could not be read).
    public static func unavailable(capability: String, status: CapabilityStatus) -> CapabilityError {
        CapabilityError(.unavailable, capability: capability, status: status)
    }

    /// The status does not meet the requirement.
    public static func unauthorized(capability: String, status: CapabilityStatus, requirement: String)
        -> CapabilityError
    {
        CapabilityError(.unauthorized, capability: capability, status: status, requirement: requirement)
    }

    public var description: String {
        if code == .unavailable { return "\(capability) is unavailable: \(status.reason)" }
        if let requirement { return "\(capability) is not \(requirement) (\(status))" }
        return "\(capability): \(code) (\(status))"
    }
}
