public import Capabilities
import ConfigurationFiles
import Glibc
import Plumbing

/// Whether this process runs as a given user: its effective user id (the one the kernel
/// checks permissions against) is that user's. For a subject, the subject's effective user id.
///
/// ```swift
/// export.addCondition(AuthorizedFor(try RunsAsUser("myservice")))
/// ```
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

    /// Runs on a thread of its own: naming the user asks the user database, which may be a
    /// directory server.
    public func status() async throws -> CapabilityStatus {
        let capability = self
        return try await BlockingWork.value { capability.currentStatus(namingUser: true) }
    }

    /// Decided from the user id alone (a system call, no database) once the user's id is known, so
    /// gates decide inline; the reason then names the user by number. Nil while the user is
    /// unresolved: finding the id asks the database.
    public func knownStatus() -> CapabilityStatus? {
        user.id == nil ? nil : currentStatus(namingUser: false)
    }

    private func currentStatus(namingUser: Bool) -> CapabilityStatus {
        let userID: UInt32
        switch AccountLookup.resolve(user, group: false) {
        case .id(let id): userID = id
        case .unavailable(let status): return status
        }
        if let subject {
            if subject.uid == userID { return .authorized("\(subject) runs as \(user.label)") }
            return .denied("\(subject) does not run as \(user.label)")
        }
        let effective = geteuid()
        if effective == userID { return .authorized("running as \(user.label)") }
        let running = namingUser ? ProcessIdentity.user(effective).description : String(effective)
        return .denied("running as \(running), not \(user.label)")
    }
}
