public import Capabilities
import ConfigurationFiles

/// Whether this process runs as a given user: its effective user id (the one the kernel
/// checks permissions against) is that user's.
public struct RunsAsUser: CapabilityType {
    /// The user's id.
    public let userID: UInt32
    /// The user's name, when the user database has one.
    public let userName: String?

    /// A user by name or numeric id. An unknown name is an error here, not a denial later.
    public init(_ user: String) throws(CapabilityConfigurationError) {
        let (id, name) = try AccountLookup.userID(user)
        userID = id
        userName = name
    }

    public var name: String { "user:\(userName ?? String(userID))" }

    public func status() async throws -> CapabilityStatus { currentStatus() }

    public func knownStatus() -> CapabilityStatus? { currentStatus() }

    private func currentStatus() -> CapabilityStatus {
        let identity = ProcessIdentity.current()
        if identity.effectiveUser.id == userID { return .authorized("running as \(identity.effectiveUser)") }
        return .denied(
            "running as \(identity.effectiveUser), not \(userName.map { "\($0)(\(userID))" } ?? String(userID))")
    }
}
