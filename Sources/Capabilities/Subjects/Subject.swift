import Locking

/// Whom a gate is decided for: the client of a privileged service (a root daemon, a setuid
/// helper), as the kernel identifies it (a Unix socket's peer credentials, a process's /proc
/// entry), or a user by name, as `sudo -l -U` names one. Never built from anything the client
/// merely claims: the Linux layer makes subjects (`Subject.peer(of:)`,
/// `Subject.process(_:startTime:uid:)`, `Subject.user(named:)` in `LinuxBackends`).
///
/// A subject is one of two kinds, each with exactly what it has: a running process (its pid,
/// start time and credentials), or a user without a process (a user by name, or a socket peer
/// whose process could not be pinned). What needs a process is undecided for a user.
///
/// A gate evaluated for a subject asks each capability the same question about the subject
/// (``SubjectCapability``); one that cannot answer for another subject is unavailable, so the
/// gate is undecided, never open.
public enum Subject: Sendable, Hashable, CustomStringConvertible {
    /// A running process, pinned by its pid and start time.
    case process(SubjectProcess)
    /// A user, with no process to ask about.
    case user(SubjectUser)

    /// The subject's user and groups: a process's effective credentials, or the user's own.
    public var user: SubjectUser {
        switch self {
        case .process(let process): process.user
        case .user(let user): user
        }
    }

    /// The process, when the subject is one.
    public var process: SubjectProcess? {
        if case .process(let process) = self { return process }
        return nil
    }

    /// The effective user id, which the kernel checks permissions against.
    public var uid: UInt32 { user.uid }
    /// The effective group id.
    public var gid: UInt32 { user.gid }
    /// The supplementary group ids.
    public var supplementaryGroups: [UInt32] { user.supplementaryGroups }
    /// The effective group, then the supplementary groups.
    public var groups: [UInt32] { user.groups }
    /// The user's name, when the user database has one.
    public var userName: String? { user.name }

    /// What a login kept for this subject is kept for (``SubjectProcess/keepScope``); nil for a
    /// user without a process: nothing is kept for it.
    public var keepScope: String? { process?.keepScope }

    /// What authorizations for this subject are serialized by: its ``keepScope`` (the requests of
    /// one session take turns, so one login can serve them all), else its user.
    var serializationScope: String { keepScope ?? "uid=\(uid)" }

    /// `nobody(65534), pid 4242 on pts/3`.
    public var description: String {
        switch self {
        case .process(let process): process.label
        case .user(let user): user.label
        }
    }
}

/// A user and the groups that count for it, as the kernel holds them for a process or the group
/// database gives them at login.
public struct SubjectUser: Sendable, Hashable {
    /// The effective user id.
    public let uid: UInt32
    /// The effective group id.
    public let gid: UInt32
    /// The supplementary group ids.
    public let supplementaryGroups: [UInt32]
    /// The user's name, when the user database has one.
    public let name: String?
    /// `nobody(65534)`: made once, as the subject's reasons name it in every decision.
    let label: String

    /// A user with these ids. For the Linux layer, which reads them from the kernel.
    package init(uid: UInt32, gid: UInt32, supplementaryGroups: [UInt32], name: String?) {
        (self.uid, self.gid, self.supplementaryGroups, self.name) = (uid, gid, supplementaryGroups, name)
        label = name.map { "\($0)(\(uid))" } ?? "uid \(uid)"
    }

    /// The effective group, then the supplementary groups.
    public var groups: [UInt32] { [gid] + supplementaryGroups.filter { $0 != gid } }
}

/// A running process as the kernel identified it: its credentials, pid and start time, which
/// together name it even after the pid is reused, and what a kept login is scoped to.
public struct SubjectProcess: Sendable, Hashable {
    /// The process's effective user and groups.
    public let user: SubjectUser
    /// The process id.
    public let pid: Int32
    /// The start time (clock ticks since boot, `/proc/PID/stat` field 22): with the pid, the
    /// process's name that no later process can take.
    public let startTime: UInt64
    /// The controlling terminal (`pts/3`), when it has one.
    public let terminal: String?
    /// The audit login session (`/proc/PID/sessionid`, which pam_loginuid sets at login and
    /// logind names sessions by), when one is set.
    public let loginSession: UInt32?
    /// What a login kept for this process is kept for: its login session, else its session and
    /// terminal or parent process, as polkit's `auth_admin_keep` and sudo scope theirs. The Linux
    /// layer's one rule (`KeepScope` in `LinuxBackends`) makes it, for this process and for
    /// subjects alike.
    public let keepScope: String
    /// What the platform layer keeps open for this process while the subject lives (on Linux its
    /// /proc directory, proven once to be this process's): shared by every copy of the subject,
    /// and no part of its identity.
    package let handles: SubjectProcessHandles
    /// `nobody(65534), pid 4242 on pts/3`: made once, as the subject's reasons name it in every
    /// decision.
    let label: String

    /// A process with these credentials and names. For the Linux layer, which reads them from
    /// the kernel.
    package init(
        user: SubjectUser, pid: Int32, startTime: UInt64, terminal: String?, loginSession: UInt32?, keepScope: String
    ) {
        self.user = user
        self.pid = pid
        self.startTime = startTime
        self.terminal = terminal
        self.loginSession = loginSession
        self.keepScope = keepScope
        self.handles = SubjectProcessHandles()
        label = "\(user.label), pid \(pid)" + (terminal.map { " on \($0)" } ?? "")
    }

    public static func == (left: SubjectProcess, right: SubjectProcess) -> Bool {
        (left.user, left.pid, left.startTime, left.terminal, left.loginSession, left.keepScope)
            == (right.user, right.pid, right.startTime, right.terminal, right.loginSession, right.keepScope)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(user)
        hasher.combine(pid)
        hasher.combine(startTime)
        hasher.combine(terminal)
        hasher.combine(loginSession)
        hasher.combine(keepScope)
    }
}

/// One value the platform layer opens for a subject's process on first need and keeps for the
/// subject's life: a decision per call then reads the process through it rather than proving
/// again, per call, that its pid is still the same process.
package final class SubjectProcessHandles: Sendable {
    private let kept = Lock<(any Sendable & AnyObject)?>(nil)

    package init() {}

    /// The value kept, if one of this type is.
    package func value<Handle: Sendable & AnyObject>(of type: Handle.Type) -> Handle? {
        kept.withLock { $0 as? Handle }
    }

    /// Keeps `handle`, unless another was kept meanwhile: the one kept from then on.
    package func keep<Handle: Sendable & AnyObject>(_ handle: Handle) -> Handle {
        kept.withLock { kept in
            if let earlier = kept as? Handle { return earlier }
            kept = handle
            return handle
        }
    }
}
