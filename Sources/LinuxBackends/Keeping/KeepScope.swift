import Glibc

/// What a kept login is kept for, the one rule for this process and for a service's clients
/// alike: the user, the session (its id and its leader's start time) and the controlling
/// terminal when there is one, as sudo keeps per terminal and polkit per session. Without a
/// terminal the session alone (`ssh host 'a && b'`, `su -c`, a cron job: the commands of one
/// session share a login, and the next session asks again); with the session leader out of sight
/// (another PID namespace), the parent process, as sudo falls back to `ppid`; else the process
/// itself. The audit login session, when there is one, narrows it further (polkit keeps
/// `auth_admin_keep` per login session alone, which lets every terminal of a login share one).
/// Every id is paired with a start time, so a reused pid never inherits a scope.
package enum KeepScope {
    /// The parts a scope is made of, read from /proc for one process.
    package struct Parts {
        package var uid: UInt32
        package var loginSession: UInt32?
        package var session: (id: Int32, leaderStart: UInt64)?
        package var terminal: String?
        package var parent: (pid: Int32, startTime: UInt64)?
        package var process: (pid: Int32, startTime: UInt64)

        package init(
            uid: UInt32, loginSession: UInt32? = nil, session: (id: Int32, leaderStart: UInt64)? = nil,
            terminal: String? = nil, parent: (pid: Int32, startTime: UInt64)? = nil,
            process: (pid: Int32, startTime: UInt64)
        ) {
            (self.uid, self.loginSession, self.session) = (uid, loginSession, session)
            (self.terminal, self.parent, self.process) = (terminal, parent, process)
        }
    }

    package static func scope(_ parts: Parts) -> String {
        let user = "uid=\(parts.uid)"
        var words = [user]
        if let loginSession = parts.loginSession { words.append("login-session=\(loginSession)") }
        if let session = parts.session { words.append("session=\(session.id):\(session.leaderStart)") }
        if let terminal = parts.terminal { words.append("tty=\(terminal)") }
        if parts.session == nil {
            guard let parent = parts.parent else {
                return (words + ["process=\(parts.process.pid):\(parts.process.startTime)"]).joined(separator: " ")
            }
            words.append("parent=\(parent.pid):\(parent.startTime)")
        }
        return words.joined(separator: " ")
    }

    /// The parts of the process `stat` describes, running as `uid`.
    static func parts(uid: UInt32, pid: Int32, stat: ProcessFiles.Stat, loginSession: UInt32?) -> Parts {
        Parts(
            uid: uid, loginSession: loginSession,
            session: stat.session > 0 ? ProcessFiles.startTime(of: stat.session).map { (stat.session, $0) } : nil,
            terminal: ProcessFiles.terminalName(stat.terminal),
            parent: stat.parent > 0 ? ProcessFiles.startTime(of: stat.parent).map { (stat.parent, $0) } : nil,
            process: (pid, stat.startTime))
    }

    /// The scope of the process `stat` describes, running as `uid`.
    static func scope(uid: UInt32, pid: Int32, stat: ProcessFiles.Stat, loginSession: UInt32?) -> String {
        scope(parts(uid: uid, pid: pid, stat: stat, loginSession: loginSession))
    }

    /// This process's scope, for records another process of the same scope reads; nil when /proc
    /// cannot tell it, or it would be this process alone (no later process could share it).
    static func current() -> String? {
        guard let stat = ProcessFiles.stat(of: "self") else { return nil }
        let parts = parts(
            uid: geteuid(), pid: getpid(), stat: stat, loginSession: ProcessFiles.loginSession(of: getpid()))
        guard parts.session != nil || parts.parent != nil else { return nil }
        return scope(parts)
    }
}
