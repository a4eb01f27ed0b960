import CLinuxSupport
import Capabilities
import Glibc

/// What a subject's process holds now, read only while it provably is the process the subject
/// pinned: the same process (read through its /proc directory, proven once by its start time:
/// ``ProcessDirectory``), the same credentials the kernel recorded for it (uid,
/// gid and groups), and a program it did not gain privileges by starting.
///
/// The kernel pins a socket peer's uid and groups at `connect()` (`SO_PEERCRED`), but nothing
/// else: a client can connect, then exec a setuid or file-capability program that waits (passwd
/// at its prompt) while a child sends the request on the inherited connection. The pid and start
/// time are unchanged, and `/proc/PID/status` then shows the new program's capabilities. A uid
/// change shows in the credentials; a file-capability program changes no id, so the kernel's own
/// mark is used: a program started with privileges it did not have runs in secure-execution mode
/// (`AT_SECURE` in its auxiliary vector), set at that execve for setuid, setgid and file
/// capabilities beyond the process's own. Such a program may have been started after the
/// connection, so what it holds is never the subject's. The vector is read before and after the
/// status: it holds addresses chosen afresh at every execve (where `AT_RANDOM` points, on the
/// new stack), so an exec between the readings shows. Once a reading has found an unprivileged
/// program, the next reads only the vector after the status: the same vector is the same
/// program, so there was no exec since that reading either. (A process may start its programs
/// without address randomization, but a privileged program starts with it on again, and a vector
/// repeated after one would take that program turning it off and starting the same program with
/// the same stack.) Such a reading need not read the status either, where the first found the
/// process's credentials fixed (``ProcessFiles/Status/credentialsFixed``): its effective set comes
/// from capget(2) by pid, which the vector read through the directory after it proves was still
/// the process's.
enum PinnedProcessReading {
    /// The process's effective capability set (nil when unreadable) and user namespace, read while
    /// it was what the subject pinned.
    case holding(effectiveCapabilities: UInt64?, ProcessFiles.UserNamespace)
    /// It has ended, or its pid is another process's.
    case ended
    /// It may no longer be what was pinned: why.
    case changed(String)
    /// It could not be read: why.
    case unreadable(String)

    /// Whether two vectors are the same bytes: one memcmp, where Array's == compares a few hundred
    /// bytes one by one on every call.
    private static func sameBytes(_ left: [UInt8], _ right: [UInt8]) -> Bool {
        left.count == right.count
            && (left.isEmpty
                || left.withUnsafeBytes { left in
                    right.withUnsafeBytes { right in memcmp(left.baseAddress!, right.baseAddress!, left.count) == 0 }
                })
    }

    static func read(_ process: SubjectProcess) -> PinnedProcessReading {
        let pid = process.pid
        let directory: ProcessDirectory
        do {
            directory = try ProcessDirectory.of(process)
        } catch {
            switch error {
            case .ended: return .ended
            case .unreadable(let reason): return .unreadable(reason)
            }
        }
        if let known = directory.unprivilegedProgram {
            if known.credentialsFixed {
                var effective: UInt64 = 0
                if clinux_process_effective_capabilities(pid, &effective) == 0,
                    case let namespace = directory.userNamespace(of: pid),
                    let afterBytes = try? directory.bytes(of: "auxv"), sameBytes(afterBytes, known.vector)
                {
                    return .holding(effectiveCapabilities: effective, namespace)
                }
            } else if let statusBytes = try? directory.statusBytes(),
                case let status = ProcessFiles.Status(parsing: statusBytes), !status.isZombie,
                case let namespace = directory.userNamespace(of: pid),
                let afterBytes = try? directory.bytes(of: "auxv"), sameBytes(afterBytes, known.vector)
            {
                return checked(status, namespace, of: process)
            }
        }
        // Every file below is the pinned process's or fails (ProcessDirectory): a failing one
        // means it has ended, except the vector, which another user's process may refuse.
        let before: ProcessFiles.AuxiliaryVector
        do {
            before = ProcessFiles.AuxiliaryVector(bytes: try directory.bytes(of: "auxv"))
        } catch {
            guard error.code != ESRCH, error.code != ENOENT else { return .ended }
            return .unreadable(
                "cannot tell which program process \(pid) runs (/proc/\(pid)/auxv: \(error.reason)); reading another user's process needs the right to trace it (CAP_SYS_PTRACE)"
            )
        }
        // A process that has exited keeps its files until it is reaped, but no program (an empty vector).
        guard let statusBytes = try? directory.statusBytes(),
            case let status = ProcessFiles.Status(parsing: statusBytes), !status.isZombie,
            case let namespace = directory.userNamespace(of: pid),
            let afterBytes = try? directory.bytes(of: "auxv"), !afterBytes.isEmpty,
            case let after = ProcessFiles.AuxiliaryVector(bytes: afterBytes)
        else { return .ended }
        guard before == after else { return .changed("process \(pid) started another program while it was read") }
        guard let privileged = after.startedWithPrivileges else {
            return .unreadable(
                "cannot tell whether the program process \(pid) runs gained privileges when it was started (/proc/\(pid)/auxv has no AT_SECURE: the process may be starting it now)"
            )
        }
        if privileged {
            return .changed(
                "process \(pid) runs a program that gained privileges when it was started (setuid, setgid or file capabilities): it may have started it after it was identified, so what that program holds is not the client's"
            )
        }
        let reading = checked(status, namespace, of: process)
        if case .holding = reading {
            directory.found(
                unprivilegedProgram: .init(vector: afterBytes, credentialsFixed: status.credentialsFixed))
        }
        return reading
    }

    /// `status`, read while the process ran an unprivileged program: holding, when its
    /// credentials are the ones pinned.
    private static func checked(
        _ status: ProcessFiles.Status, _ namespace: ProcessFiles.UserNamespace, of process: SubjectProcess
    ) -> PinnedProcessReading {
        let (pid, user) = (process.pid, process.user)
        guard let uid = status.effectiveUser, let gid = status.effectiveGroup, let groups = status.groups else {
            return .unreadable("cannot read the credentials of process \(pid)")
        }
        // Both lists are the kernel's (SO_PEERGROUPS then, /proc now), in its order: equal arrays
        // are the common case, and sets decide the rest.
        guard uid == user.uid, gid == user.gid,
            groups == user.supplementaryGroups || Set(groups) == Set(user.supplementaryGroups)
        else {
            return .changed(
                "process \(pid) runs as uid \(uid), gid \(gid), groups \(groups) now, not as it was identified (uid \(user.uid), gid \(user.gid), groups \(user.supplementaryGroups))"
            )
        }
        return .holding(effectiveCapabilities: status.effectiveCapabilities, namespace)
    }
}
