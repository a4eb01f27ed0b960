/// Whom a gate is decided for: the client of a privileged service (a root daemon, a setuid
/// helper), as the kernel identifies it (a Unix socket's peer credentials, a process's /proc
/// entry) or a user by name, as `sudo -l -U` names one. Never built from anything the client
/// merely claims: the Linux layer makes subjects (`Subject.peer(of:)`, `Subject.process(_:)`,
/// `Subject.user(named:)` in `LinuxBackends`).
///
/// A gate evaluated for a subject asks each capability the same question about the subject
/// (``SubjectCapability``); one that cannot answer for another subject is unavailable, so the
/// gate is undecided, never open.
public struct Subject: Sendable, Hashable, CustomStringConvertible {
    /// How the subject was identified.
    public enum Source: String, Sendable, Hashable {
        /// The process at the other end of a Unix socket (`SO_PEERCRED`).
        case socketPeer
        /// A process by its id (`/proc/PID`).
        case process
        /// A user by name: no process, so only what a user alone decides can be answered.
        case user
    }

    /// The effective user id, which the kernel checks permissions against.
    public let uid: UInt32
    /// The effective group id.
    public let gid: UInt32
    /// The supplementary group ids.
    public let supplementaryGroups: [UInt32]
    /// The process, when the subject is one.
    public let pid: Int32?
    /// The process's start time (clock ticks since boot, `/proc/PID/stat` field 22), which
    /// names the process together with its pid even after the pid is reused.
    public let startTime: UInt64?
    /// The parent process's pid, when the subject is a process whose parent is in sight.
    public let parentPid: Int32?
    /// The parent process's start time, which names it together with its pid.
    public let parentStartTime: UInt64?
    /// The process's session id (the session leader's pid), when the subject is a process.
    public let session: Int32?
    /// The session leader's start time, which names the session together with its id even
    /// after the id is reused.
    public let sessionStartTime: UInt64?
    /// The process's controlling terminal (`pts/3`), when it has one.
    public let terminal: String?
    /// The audit login session (`/proc/PID/sessionid`, which pam_loginuid sets at login and
    /// logind names sessions by), when one is set.
    public let loginSession: UInt32?
    /// The user's name, when the user database has one.
    public let userName: String?
    /// How the subject was identified.
    public let source: Source

    /// A subject with these credentials. For the Linux layer, which reads them from the kernel.
    package init(
        uid: UInt32, gid: UInt32, supplementaryGroups: [UInt32], pid: Int32?, startTime: UInt64?,
        parentPid: Int32? = nil, parentStartTime: UInt64? = nil, session: Int32? = nil, sessionStartTime: UInt64? = nil,
        terminal: String? = nil, loginSession: UInt32? = nil,
        userName: String?,
        source: Source
    ) {
        self.uid = uid
        self.gid = gid
        self.supplementaryGroups = supplementaryGroups
        self.pid = pid
        self.startTime = startTime
        self.parentPid = parentPid
        self.parentStartTime = parentStartTime
        self.session = session
        self.sessionStartTime = sessionStartTime
        self.terminal = terminal
        self.loginSession = loginSession
        self.userName = userName
        self.source = source
    }

    /// The effective group, then the supplementary groups.
    public var groups: [UInt32] {
        [gid] + supplementaryGroups.filter { $0 != gid }
    }

    /// What a login kept for this subject is kept for, as polkit keeps `auth_admin_keep` per
    /// session and sudo per terminal: the user, and the audit login session when there is one;
    /// else the session (its id and its leader's start time) and terminal, with the parent
    /// process (its id and start time) where there is no terminal or the session leader is out
    /// of sight, as sudo falls back to `ppid`; else the process itself. Nil for a subject without
    /// a process (a user by name): nothing is kept for it.
    public var keepScope: String? {
        let user = "uid=\(uid)"
        if let loginSession { return "\(user) login-session=\(loginSession)" }
        guard let pid, let startTime else { return nil }
        var parts = [user]
        if let session, let sessionStartTime { parts.append("session=\(session):\(sessionStartTime)") }
        if let terminal { parts.append("tty=\(terminal)") }
        if terminal == nil || sessionStartTime == nil {
            guard let parentPid, let parentStartTime else { return "\(user) process=\(pid):\(startTime)" }
            parts.append("parent=\(parentPid):\(parentStartTime)")
        }
        return parts.joined(separator: " ")
    }

    /// What authorizations for this subject are serialized by: its ``keepScope`` (the requests of
    /// one session take turns, so one login can serve them all), else its user.
    var serializationScope: String { keepScope ?? "uid=\(uid)" }

    /// `nobody(65534), pid 4242 on pts/3`.
    public var description: String {
        let user = userName.map { "\($0)(\(uid))" } ?? "uid \(uid)"
        let process = pid.map { "\(user), pid \($0)" } ?? user
        return terminal.map { "\(process) on \($0)" } ?? process
    }
}
