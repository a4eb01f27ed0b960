public import Capabilities
import ConfigurationFiles

/// Whether this process runs as a given user: its effective user id (the one the kernel
/// checks permissions against) is that user's. For a subject, the subject's effective user id.
public struct RunsAsUser: SubjectCapability {
    private let user: AccountReference
    private var subject: Subject?

    /// The user's id, or nil while the user database could not be asked (a directory out of
    /// reach when the capability was made); the status is then unavailable until it answers.
    public var userID: UInt32? { user.id }
    /// The user's name, when the user database has one (or as given, while unresolved).
    public var userName: String? { user.name }

    /// A user by name or numeric id. An unknown name is an error here, not a denial later; a
    /// database that cannot answer makes the status unavailable instead.
    public init(_ user: String) throws(CapabilityConfigurationError) {
        self.user = try AccountLookup.user(user)
    }

    public var name: String { "user:\(userName ?? userID.map(String.init) ?? "")" }

    /// The same question about `subject`'s effective user.
    public func forSubject(_ subject: Subject) -> any CapabilityType {
        var asked = self
        asked.subject = subject
        return asked
    }

    public func status() async throws -> CapabilityStatus { currentStatus() }

    public func knownStatus() -> CapabilityStatus? { currentStatus() }

    private func currentStatus() -> CapabilityStatus {
        let userID: UInt32
        switch AccountLookup.resolve(user, group: false) {
        case .id(let id): userID = id
        case .unavailable(let status): return status
        }
        if let subject {
            if subject.uid == userID { return .authorized("\(subject) runs as \(user.label)") }
            return .denied("\(subject) does not run as \(user.label)")
        }
        let identity = ProcessIdentity.current()
        if identity.effectiveUser.id == userID { return .authorized("running as \(identity.effectiveUser)") }
        return .denied("running as \(identity.effectiveUser), not \(user.label)")
    }
}
