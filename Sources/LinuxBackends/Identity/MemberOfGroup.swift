public import Capabilities
import ConfigurationFiles
import Plumbing

/// Whether this process belongs to a group: its effective, real or one of its supplementary
/// group ids is the group's. (This is the process's membership, which the kernel checks; a
/// user added to a group in /etc/group gets it only at the next login.)
/// For a subject, the subject's effective and supplementary groups.
///
/// ```swift
/// export.addCondition(AuthorizedFor(try MemberOfGroup("backup")))
/// ```
public struct MemberOfGroup: SubjectCapability {
    private let group: AccountReference
    private var subject: Subject?

    /// The group's id, or nil while the group database could not be asked (a directory out of
    /// reach when the capability was made); the status is then unavailable until it answers.
    public var groupID: UInt32? { group.id }
    /// The group's name, when the group database has one (or as given, while unresolved).
    public var groupName: String? { group.name }

    /// A group by name or numeric id. An unknown name is an error here, not a denial later; a
    /// database that cannot answer makes the status unavailable instead.
    public init(_ group: String) throws(CapabilityConfigurationError) {
        self.group = try AccountLookup.group(group)
    }

    public var name: String { "group:\(groupName ?? groupID.map(String.init) ?? "")" }

    /// The same question about `subject`'s groups.
    public func forSubject(_ subject: Subject) -> any CapabilityType {
        var asked = self
        asked.subject = subject
        return asked
    }

    /// Runs on a thread of its own: naming the groups asks the group database, which may be a
    /// directory server.
    public func status() async throws -> CapabilityStatus {
        let capability = self
        return try await BlockingWork.value { capability.currentStatus(namingGroups: true) }
    }

    /// Decided from group ids alone (system calls, no database) once the group's id is known, so
    /// gates decide inline; the reason then names groups by number. Nil while the group is
    /// unresolved: finding its id asks the database.
    public func knownStatus() -> CapabilityStatus? {
        group.id == nil ? nil : currentStatus(namingGroups: false)
    }

    private func currentStatus(namingGroups: Bool) -> CapabilityStatus {
        let groupID: UInt32
        switch AccountLookup.resolve(group, group: true) {
        case .id(let id): groupID = id
        case .unavailable(let status): return status
        }
        let label = group.label
        if let subject {
            if subject.groups.contains(groupID) { return .authorized("\(subject) is in \(label)") }
            return .denied(
                "\(subject) is not in \(label) (groups: \(subject.groups.map(String.init).joined(separator: ", ")))")
        }
        let ids = ProcessIdentity.currentGroupIDs()
        if ids.effective == groupID { return .authorized("effective group is \(label)") }
        if ids.real == groupID { return .authorized("real group is \(label)") }
        if ids.supplementary.contains(groupID) { return .authorized("\(label) is a supplementary group") }
        let groups = ([ids.effective] + ids.supplementary).map { id in
            namingGroups ? ProcessIdentity.group(id).description : String(id)
        }
        return .denied("not a member of \(label) (groups: \(groups.joined(separator: ", ")))")
    }
}
