import CLinuxSupport
public import Capabilities
import Glibc
import Plumbing
import SystemPackage

/// Why a subject could not be made.
public struct SubjectError: Error, Sendable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

extension Subject {
    /// The process at the other end of a connected Unix socket, as the kernel recorded it when
    /// the connection was made (`SO_PEERCRED`; supplementary groups from `SO_PEERGROUPS`). Its
    /// start time is read through the pidfd the kernel gives for the peer (`SO_PEERPIDFD`, Linux
    /// 6.5), checked to still name the peer afterwards; a peer that has already exited is a
    /// subject without a process. Where the kernel has no `SO_PEERPIDFD` (Debian 12's 6.1), the
    /// subject has no process either: a pid opened after `accept()` may already be another
    /// process's (the client exited, a root process took its pid), so it is decided from the
    /// credentials the kernel recorded at connect time alone, and what needs a process is
    /// undecided.
    public static func peer(of socket: Int32) throws(SubjectError) -> Subject {
        var pid: Int32 = 0
        var uid: UInt32 = 0
        var gid: UInt32 = 0
        let code = clinux_socket_peer_credentials(socket, &pid, &uid, &gid)
        guard code == 0 else {
            throw SubjectError("cannot read the socket peer's credentials: \(String(cString: strerror(code)))")
        }
        let groups = try peerGroups(socket)
        let user = SubjectUser(uid: uid, gid: gid, supplementaryGroups: groups, name: ProcessIdentity.user(uid).name)
        let owned = FileDescriptor(adopting: clinux_socket_peer_pidfd(socket))
        defer { try? owned?.close() }
        // Read between the pidfd's opening and its check that the peer still runs: the pid was
        // the peer's all along.
        guard let pidfd = owned?.rawValue, let stat = ProcessFiles.stat(of: String(pid)),
            case let loginSession = ProcessFiles.loginSession(of: pid), clinux_pidfd_alive(pidfd) == 1
        else { return .user(user) }
        return .process(Self.process(user: user, pid: pid, stat: stat, loginSession: loginSession))
    }

    /// A running process named by its id, its start time and its effective user, as polkit's
    /// `pkcheck --process pid,start-time,uid` names one: refused unless the process with that pid
    /// started at `startTime` (clock ticks since boot, field 22 of `/proc/PID/stat`) and runs as
    /// `uid` now. A bare pid is not a subject: a client that execs a setuid program keeps its pid
    /// and start time and would be decided as root (CVE-2013-4288); the uid its caller saw (from
    /// `SO_PEERCRED`, say) pins what it may be decided as.
    public static func process(_ pid: Int32, startTime: UInt64, uid: UInt32) throws(SubjectError) -> Subject {
        let subject = try process(pid)
        guard case .process(let process) = subject, process.startTime == startTime else {
            throw SubjectError(
                "process \(pid) is not the one named: it started at \(subject.process.map { String($0.startTime) } ?? "an unknown time"), not \(startTime)"
            )
        }
        guard subject.uid == uid else {
            throw SubjectError("process \(pid) is not the one named: it runs as uid \(subject.uid), not \(uid)")
        }
        return subject
    }

    /// A running process, by its id alone, as it is when read: the effective user and groups the
    /// kernel holds for it (`/proc/PID/status`), read between two readings of its start time
    /// through a pidfd, so a pid reused meanwhile is refused rather than mistaken for the process.
    /// For a process's own diagnostics; to decide for another process, name its start time and
    /// user too (``process(_:startTime:uid:)``): between choosing the pid and reading it, the
    /// process may have become root by exec'ing a setuid program.
    public static func process(_ pid: Int32) throws(SubjectError) -> Subject {
        guard pid > 0 else { throw SubjectError("\(pid) is not a process id") }
        guard let owned = FileDescriptor(adopting: clinux_pidfd_open(pid)) else {
            throw SubjectError("no process \(pid): \(Errno.current)")
        }
        defer { try? owned.close() }
        let pidfd = owned.rawValue
        guard let before = ProcessFiles.stat(of: String(pid)), let status = ProcessFiles.status(of: pid),
            case let loginSession = ProcessFiles.loginSession(of: pid),
            let after = ProcessFiles.stat(of: String(pid)), before.startTime == after.startTime,
            clinux_pidfd_alive(pidfd) == 1
        else { throw SubjectError("process \(pid) ended or changed while it was read") }
        guard let uid = status.effectiveUser, let gid = status.effectiveGroup, let groups = status.groups else {
            throw SubjectError("cannot read the credentials of process \(pid)")
        }
        let user = SubjectUser(
            uid: uid, gid: gid, supplementaryGroups: groups, name: ProcessIdentity.user(uid).name)
        return .process(Self.process(user: user, pid: pid, stat: after, loginSession: loginSession))
    }

    /// The process `stat` describes, with `user`'s credentials.
    private static func process(user: SubjectUser, pid: Int32, stat: ProcessFiles.Stat, loginSession: UInt32?)
        -> SubjectProcess
    {
        SubjectProcess(
            user: user, pid: pid, startTime: stat.startTime, terminal: ProcessFiles.terminalName(stat.terminal),
            loginSession: loginSession,
            keepScope: KeepScope.scope(uid: user.uid, pid: pid, stat: stat, loginSession: loginSession))
    }

    /// A user by name or numeric id, with the groups the group database gives them at login
    /// (`getgrouplist`). No process: capabilities that need one are unavailable for it.
    public static func user(named user: String) throws(SubjectError) -> Subject {
        let uid: uid_t
        if let number = uid_t(user) {
            uid = number
        } else {
            switch AccountDatabase.user(named: user) {
            case .found(let found): uid = found
            case .notFound: throw SubjectError("unknown user \"\(user)\"")
            case .failed(let reason): throw SubjectError(reason)
            }
        }
        let entry: AccountDatabase.UserEntry
        switch AccountDatabase.userEntry(id: uid) {
        case .found(let found): entry = found
        case .notFound: throw SubjectError("no user with uid \(uid) in the user database")
        case .failed(let reason): throw SubjectError(reason)
        }
        return try Self.user(entry)
    }

    /// The user of a login entry already read, with the groups the group database gives them.
    package static func user(_ entry: AccountDatabase.UserEntry) throws(SubjectError) -> Subject {
        let (uid, name, gid) = (entry.uid, entry.name, entry.gid)
        var count: Int32 = 64
        var groups = [gid_t](repeating: 0, count: Int(count))
        while getgrouplist(name, gid, &groups, &count) < 0 {
            guard count <= 65536 else { throw SubjectError("\(name) is in more than 65,536 groups") }
            groups = [gid_t](repeating: 0, count: Int(count))
        }
        return .user(SubjectUser(uid: uid, gid: gid, supplementaryGroups: Array(groups.prefix(Int(count))), name: name))
    }

    private static func peerGroups(_ socket: Int32) throws(SubjectError) -> [UInt32] {
        var capacity: Int32 = 64
        while true {
            var groups = [UInt32](repeating: 0, count: Int(capacity))
            var count: Int32 = 0
            let code = clinux_socket_peer_groups(socket, &groups, capacity, &count)
            if code == 0 { return Array(groups.prefix(Int(count))) }
            if code == ERANGE, count > capacity, count <= 65536 {
                capacity = count
                continue
            }
            throw SubjectError("cannot read the socket peer's groups: \(String(cString: strerror(code)))")
        }
    }
}
