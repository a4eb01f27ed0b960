public import Capabilities
import ConfigurationFiles

/// Whether this process belongs to a group: its effective, real or one of its supplementary
/// group ids is the group's. (This is the process's membership, which the kernel checks; a
/// user added to a group in /etc/group gets it only at the next login.)
public struct MemberOfGroup: CapabilityType {
    private let group: AccountReference

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

    public func status() async throws -> CapabilityStatus { currentStatus() }

    public func knownStatus() -> CapabilityStatus? { currentStatus() }

    private func currentStatus() -> CapabilityStatus {
        let groupID: UInt32
        switch AccountLookup.resolve(group, group: true) {
        case .id(let id): groupID = id
        case .unavailable(let status): return status
        }
        let identity = ProcessIdentity.current()
        let label = group.label
        if identity.effectiveGroup.id == groupID { return .authorized("effective group is \(label)") }
        if identity.realGroup.id == groupID { return .authorized("real group is \(label)") }
        if identity.supplementaryGroups.contains(where: { $0.id == groupID }) {
            return .authorized("\(label) is a supplementary group")
        }
        let groups = ([identity.effectiveGroup] + identity.supplementaryGroups).map(\.description).joined(
            separator: ", ")
        return .denied("not a member of \(label) (groups: \(groups))")
    }
}
