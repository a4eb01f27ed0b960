/// The state of a capability, in one vocabulary shared by every backend.
///
/// A status is a fact read at one moment: whether the capability is granted, why, and (for
/// capabilities that grant in degrees, such as file access) what exactly is granted. Whether a
/// status is good enough for a given need is decided by a ``CapabilityRequirement``.
///
/// ```swift
/// let status = try await dataDirectory.status()
/// if status.kind == .authorized { print("writable") } else { print(status.reason) }
/// let made = CapabilityStatus.denied("no token", cause: .resourceMissing)
/// ```
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

    /// Why a status is what it is, for programs: decisions read this, never ``reason``'s words.
    /// New causes are added as static members, so switching over them needs a `default`.
    ///
    /// ```swift
    /// let status = CapabilityStatus.unavailable("vault did not answer", cause: .backendUnreachable)
    /// print(status.cause == .backendUnreachable)
    /// ```
    public struct Cause: Sendable, Hashable, CustomStringConvertible {
        /// The cause's name, stable across releases.
        public let name: String

        /// A cause of a backend's own; prefer the predefined ones where they fit.
        public init(_ name: String) {
            self.name = name
        }

        /// The person was asked and cancelled (closed the prompt, pressed Ctrl-D).
        public static let dismissed = Cause("dismissed")
        /// Determining the status failed; nothing was decided.
        public static let error = Cause("error")
        /// A kept authorization ran out; asking again may grant it.
        public static let expired = Cause("expired")
        /// What the backend needs is not on this machine (a library, a daemon, a kernel feature).
        public static let backendMissing = Cause("backendMissing")
        /// The backend is there but could not be reached (a directory server down behind sssd,
        /// PAM's `PAM_AUTHINFO_UNAVAIL`): an outage, not a denial; asking later may succeed.
        public static let backendUnreachable = Cause("backendUnreachable")
        /// The thing the capability is about does not exist (a file, a user, a flag).
        public static let resourceMissing = Cause("resourceMissing")
        /// The capability is set up wrongly (a missing or untrusted service file, a broken flag).
        public static let misconfigured = Cause("misconfigured")

        public var description: String { name }
    }

    /// Which state.
    public var kind: Kind
    /// Why, in words a person can read.
    public var reason: String
    /// What an authorized status grants, in the capability's own terms (for file access:
    /// `read`, `write`, `execute`). Empty for capabilities that are all or nothing.
    public var grants: Set<String>
    /// Why, for programs; nil when the kind says it all.
    public var cause: Cause?

    /// Creates a status.
    public init(_ kind: Kind, reason: String, grants: Set<String> = [], cause: Cause? = nil) {
        self.kind = kind
        self.reason = reason
        self.grants = grants
        self.cause = cause
    }

    /// An authorized status.
    public static func authorized(_ reason: String, grants: Set<String> = []) -> CapabilityStatus {
        CapabilityStatus(.authorized, reason: reason, grants: grants)
    }

    /// A denied status.
    public static func denied(_ reason: String, cause: Cause? = nil) -> CapabilityStatus {
        CapabilityStatus(.denied, reason: reason, cause: cause)
    }

    /// A status that asking could change.
    public static func notDetermined(_ reason: String, cause: Cause? = nil) -> CapabilityStatus {
        CapabilityStatus(.notDetermined, reason: reason, cause: cause)
    }

    /// A status for a backend or resource that does not exist here, or that could not be read.
    public static func unavailable(_ reason: String, cause: Cause? = nil) -> CapabilityStatus {
        CapabilityStatus(.unavailable, reason: reason, cause: cause)
    }

    /// The status that stands for an error met while determining a status. It is
    /// ``Kind/unavailable`` with cause ``Cause/error``, not denied: nothing was decided, so a
    /// gate on it, or on its negation, never holds.
    public static func failure(_ error: any Error) -> CapabilityStatus {
        CapabilityStatus(.unavailable, reason: "could not determine the status: \(error)", cause: .error)
    }

    /// True when the kind is ``Kind/authorized``.
    public var isAuthorized: Bool { kind == .authorized }

    public var description: String {
        let granted = grants.isEmpty ? "" : " [" + grants.sorted().joined(separator: ", ") + "]"
        return "\(kind.rawValue)\(granted): \(reason)"
    }
}
