public import Capabilities
import ConfigurationFiles
import Glibc
import Plumbing

/// Whether this process (or a subject) is an account: runs as a user (``RunsAsUser``) or belongs
/// to a group (``MemberOfGroup``). One type for both: the account is looked up the same way (a
/// name or a numeric id; an unknown name is an error when the capability is made, a database that
/// cannot answer makes the status unavailable), decided from ids alone once the id is known, and
/// asked of a subject the same way.
///
/// ```swift
/// export.addCondition(AuthorizedFor(try MemberOfGroup("backup")))
/// export.addCondition(AuthorizedFor(try RunsAsUser("postgres")))
/// ```
public struct AccountCapability<Account: AccountKind>: SubjectCapability {
    private let account: AccountReference
    private var subject: Subject?

    /// The account's id, or nil while the database could not be asked (a directory out of reach
    /// when the capability was made); the status is then unavailable until it answers.
    public var accountID: UInt32? { account.id }
    /// The account's name, when the database has one (or as given, while unresolved).
    public var accountName: String? { account.name }

    /// An account by name or numeric id. An unknown name is an error here, not a denial later;
    /// a database that cannot answer makes the status unavailable instead.
    public init(_ nameOrID: String) throws(CapabilityConfigurationError) {
        account = try Account.isGroup ? AccountLookup.group(nameOrID) : AccountLookup.user(nameOrID)
    }

    public var name: String { "\(Account.word):\(accountName ?? accountID.map(String.init) ?? "")" }

    /// The same question about `subject`: its effective user, or its effective and supplementary groups.
    public func forSubject(_ subject: Subject) -> any CapabilityType {
        var asked = self
        asked.subject = subject
        return asked
    }

    /// Runs on a thread of its own: naming accounts asks the database, which may be a directory server.
    public func status() async throws -> CapabilityStatus {
        let capability = self
        return try await BlockingWork.value { capability.currentStatus(naming: true) }
    }

    /// Known from ids alone (system calls, no database) once the account's id is known, so a
    /// gate decides inline. Nil while the account is unresolved (finding its id asks the
    /// database), and for a denial whose reason would name an account not read lately: the
    /// reason names the accounts it lists (a denial reads `(groups: root(0), adm(4))` on every
    /// route, never a bare number), and reading a name may ask a directory server.
    public func knownStatus() -> CapabilityStatus? {
        guard account.id != nil else { return nil }
        let status = currentStatus(naming: false)
        if status.kind == .authorized { return status }
        // Another kind's reason may name what these do not list.
        guard Account.self == GroupAccount.self || Account.self == UserAccount.self,
            AccountNames.areKept(users: namedUsers, groups: namedGroups)
        else { return nil }
        return currentStatus(naming: true)
    }

    /// The users a denial's reason names: this process's effective user (a subject's denial names
    /// no user).
    private var namedUsers: [UInt32] {
        Account.isGroup || subject != nil ? [] : [geteuid()]
    }

    /// The groups a denial's reason names: the subject's, or this process's effective and
    /// supplementary groups.
    private var namedGroups: [UInt32] {
        guard Account.isGroup else { return [] }
        if let subject { return subject.groups }
        let ids = ProcessIdentity.currentGroupIDs()
        return [ids.effective] + ids.supplementary
    }

    private func currentStatus(naming: Bool) -> CapabilityStatus {
        switch AccountLookup.resolve(account, group: Account.isGroup) {
        case .id(let id): Account.status(of: id, label: account.label, subject: subject, naming: naming)
        case .unavailable(let status): status
        }
    }
}

/// What an ``AccountCapability`` asks about: a user (``UserAccount``) or a group (``GroupAccount``).
public protocol AccountKind: Sendable {
    /// `user` or `group`, as the capability's name starts.
    static var word: String { get }
    /// Whether the account is looked up in the group database.
    static var isGroup: Bool { get }
    /// Whether `subject` (nil: this process) is the account `id`, named `label` in the reason;
    /// with `naming`, the reason names the ids it found (which may ask the database).
    static func status(of id: UInt32, label: String, subject: Subject?, naming: Bool) -> CapabilityStatus
}

/// A user: the effective user id, the one the kernel checks permissions against.
public enum UserAccount: AccountKind {
    public static let word = "user"
    public static let isGroup = false

    public static func status(of id: UInt32, label: String, subject: Subject?, naming: Bool) -> CapabilityStatus {
        if let subject {
            return subject.uid == id
                ? .authorized("\(subject) runs as \(label)") : .denied("\(subject) does not run as \(label)")
        }
        let effective = geteuid()
        if effective == id { return .authorized("running as \(label)") }
        let running = naming ? ProcessIdentity.user(effective).description : String(effective)
        return .denied("running as \(running), not \(label)")
    }
}

/// A group: the effective, real or a supplementary group id (the process's membership, which the
/// kernel checks; a user added to a group in /etc/group gets it only at the next login). For a
/// subject, its effective and supplementary groups.
public enum GroupAccount: AccountKind {
    public static let word = "group"
    public static let isGroup = true

    public static func status(of id: UInt32, label: String, subject: Subject?, naming: Bool) -> CapabilityStatus {
        if let subject {
            if subject.groups.contains(id) { return .authorized("\(subject) is in \(label)") }
            let groups = subject.groups.map { naming ? ProcessIdentity.group($0).description : String($0) }
            return .denied("\(subject) is not in \(label) (groups: \(groups.joined(separator: ", ")))")
        }
        let ids = ProcessIdentity.currentGroupIDs()
        if ids.effective == id { return .authorized("effective group is \(label)") }
        if ids.real == id { return .authorized("real group is \(label)") }
        if ids.supplementary.contains(id) { return .authorized("\(label) is a supplementary group") }
        let groups = ([ids.effective] + ids.supplementary).map { group in
            naming ? ProcessIdentity.group(group).description : String(group)
        }
        return .denied("not a member of \(label) (groups: \(groups.joined(separator: ", ")))")
    }
}

/// Whether this process runs as a user: its effective user id is the user's.
///
/// ```swift
/// export.addCondition(AuthorizedFor(try RunsAsUser("myservice")))
/// ```
public typealias RunsAsUser = AccountCapability<UserAccount>

/// Whether this process belongs to a group: its effective, real or a supplementary group id is
/// the group's.
///
/// ```swift
/// export.addCondition(AuthorizedFor(try MemberOfGroup("backup")))
/// ```
public typealias MemberOfGroup = AccountCapability<GroupAccount>
