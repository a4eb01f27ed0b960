public import Capabilities
import ConfigurationFiles

/// Whether this process belongs to a group: its effective, real or one of its supplementary
/// group ids is the group's. (This is the process's membership, which the kernel checks; a
/// user added to a group in /etc/group gets it only at the next login.)
public struct MemberOfGroup: CapabilityType {
    /// The group's id.
    public let groupID: UInt32
    /// The group's name, when the group database has one.
    public let groupName: String?

    /// A group by name or numeric id. An unknown name is an error here, not a denial later.
    public init(_ group: String) throws(CapabilityConfigurationError) {
        let (id, name) = try AccountLookup.groupID(group)
        groupID = id
        groupName = name
    }

    public var name: String { "group:\(groupName ?? String(groupID))" }

    public func status() async throws -> CapabilityStatus { currentStatus() }

    public func knownStatus() -> CapabilityStatus? { currentStatus() }

    private func currentStatus() -> CapabilityStatus {
        let identity = ProcessIdentity.current()
        let label = groupName.map { "\($0)(\(groupID))" } ?? String(groupID)
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
