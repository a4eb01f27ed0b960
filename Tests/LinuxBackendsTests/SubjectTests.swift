import CLinuxSupport
import Capabilities
import Foundation
import Glibc
import LinuxBackends
import TestSupport
import Testing

/// Subjects as the kernel identifies them: a real Unix socket's peer as uid 65534.
@Suite("subjects", .enabled(if: geteuid() == 0, "needs root to run a client as uid 65534"), .timeLimit(.minutes(2)))
struct SubjectTests {
    /// A listening socket of the test's own, in a directory uid 65534 can reach.
    private func listener() throws -> (descriptor: Int32, path: String, directory: TemporaryDirectory) {
        let directory = try TemporaryDirectory(prefix: "subject-socket")
        chmod(directory.path, 0o755)
        let path = directory.path + "/socket"
        let descriptor = clinux_unix_socket(path, Int32(SOCK_STREAM.rawValue), CLINUX_UNIX_LISTEN)
        #expect(descriptor >= 0)
        chmod(path, 0o777)
        return (descriptor, path, directory)
    }

    @Test("a socket peer is the kernel's word: uid, groups, pid and start time of the client as it connected")
    func socketPeer() async throws {
        let (server, path, directory) = try listener()
        defer { close(server) }
        _ = directory
        let client = try DaemonProcess(
            [
                "/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--groups=4242,4343",
                builtProductForAnyUser("capability-probe"), "connect", path,
            ], environment: [:])
        defer { client.stop() }
        #expect(await client.nextLine() == "connected")
        let connection = accept(server, nil, nil)
        #expect(connection >= 0)
        defer { close(connection) }
        let subject = try Subject.peer(of: connection)
        #expect(subject.uid == 65534)
        #expect(subject.gid == 65534)
        #expect(Set(subject.supplementaryGroups) == [4242, 4343])
        #expect(subject.process?.pid == client.pid)
        // The same answers as for the process by its id.
        let process = try Subject.process(client.pid)
        #expect(process.uid == subject.uid && process.process?.startTime == subject.process?.startTime)
        #expect(process == subject)
        #expect(Set(process.supplementaryGroups) == Set(subject.supplementaryGroups))
        // A peer that has exited is a subject without a process: nothing can be asked of a pid
        // that may be reused.
        client.stop()
        let gone = try Subject.peer(of: connection)
        #expect(gone.uid == 65534)
        #expect(gone.process == nil, "a user, with the credentials the kernel recorded")
        #expect(throws: SubjectError.self) { try Subject.process(client.pid) }
    }

    /// Debian 12's kernel (6.1) has no SO_PEERPIDFD. A pid opened after accept() may already be
    /// another process's (the client exited, root took the pid), so without SO_PEERPIDFD the peer
    /// is decided from SO_PEERCRED alone: no process, and what needs one is undecided. Tested on
    /// this kernel by making getsockopt(SO_PEERPIDFD) fail in the server (seccomp).
    @Test("without SO_PEERPIDFD a peer has no process: its capabilities are undecided, never another's")
    func withoutPeerPidfd() async throws {
        for refused in [false, true] {
            let directory = try TemporaryDirectory(prefix: "peer-pidfd")
            chmod(directory.path, 0o755)
            let path = directory.path + "/socket"
            let server = try DaemonProcess(
                [builtProductForAnyUser("capability-probe"), "peer", path] + (refused ? ["without-peer-pidfd"] : []),
                environment: [:])
            defer { server.stop() }
            #expect(await server.nextLine() == "listening")
            // A root client: were its pid trusted, CAP_NET_BIND_SERVICE would be held.
            let client = try DaemonProcess(
                [builtProductForAnyUser("capability-probe"), "connect", path], environment: [:])
            defer { client.stop() }
            #expect(await client.nextLine() == "connected")
            let peer = await server.nextLine()
            let status = await server.nextLine() ?? ""
            if refused {
                #expect(peer == "uid=0 pid=none", "\(peer ?? "nothing")")
                #expect(status.hasPrefix("unavailable\t"), "\(status)")
            } else {
                #expect(peer == "uid=0 pid=\(client.pid)", "\(peer ?? "nothing")")
                #expect(status.hasPrefix("authorized\t"), "\(status)")
            }
        }
    }

    @Test("a client on a terminal in a login session: its terminal, session and login session are the kernel's")
    func terminalAndSession() async throws {
        let (server, path, directory) = try listener()
        defer { close(server) }
        _ = directory
        // script gives the client a pseudo-terminal in a session of its own; the login session
        // is set as pam_loginuid sets it, before the ids are dropped. Its input is a pipe that
        // stays open, so it waits.
        let client = try DaemonProcess(
            [
                "/usr/bin/script", "-qec",
                "sh -c 'echo 65534 > /proc/self/loginuid && sleep 600 | /usr/bin/setpriv --reuid=65534 "
                    + "--regid=65534 --clear-groups \(builtProductForAnyUser("capability-probe")) connect \(path)'",
                "/dev/null",
            ], environment: [:])
        defer { client.stop() }
        #expect(await client.nextLine()?.contains("connected") == true, "the pty ends lines with CR LF")
        let connection = accept(server, nil, nil)
        #expect(connection >= 0)
        defer { close(connection) }
        let subject = try Subject.peer(of: connection)
        let process = try #require(subject.process)
        let terminal = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(process.pid)/fd/1")
        #expect(terminal.hasPrefix("/dev/pts/"))
        #expect(process.terminal.map { "/dev/" + $0 } == terminal)
        let loginSession = try String(contentsOfFile: "/proc/\(process.pid)/sessionid", encoding: .utf8)
        #expect(process.loginSession.map(String.init) == loginSession)
        // Its login session narrows its session and terminal; it never widens the scope to them all.
        #expect(
            process.keepScope.hasPrefix("uid=65534 login-session=\(loginSession) session=")
                && process.keepScope.hasSuffix(" tty=\(process.terminal ?? "?")"), "\(process.keepScope)")
        #expect(subject.description.hasSuffix(" on \(process.terminal ?? "?")"))
        // Without a login session: its session (not this process's) and terminal.
        let plain = try Subject.process(getpid())
        let ownLoginSession = try String(contentsOfFile: "/proc/self/sessionid", encoding: .utf8)
        // Its session (and terminal, when it has one); its parent where the session leader is out
        // of sight (CI may run us under a leader in another pid namespace), as sudo falls back to
        // ppid; with neither, itself. A login session, when it has one, comes first.
        let leaderVisible = FileManager.default.fileExists(atPath: "/proc/\(getsid(0))/stat")
        let expected =
            leaderVisible
            ? " session=\(getsid(0)):" : getppid() > 0 ? " parent=\(getppid()):" : " process=\(getpid()):"
        if ownLoginSession != "4294967295" {
            #expect(plain.keepScope?.contains(" login-session=\(ownLoginSession)") == true, "\(plain.keepScope ?? "")")
        }
        #expect(plain.keepScope?.contains(expected) == true, "\(plain.keepScope ?? "")")
    }

    @Test("capabilities answer for the subject; one that cannot is unavailable, never a pass")
    func capabilitiesForSubjects() async throws {
        let nobody = try Subject.user(named: "nobody")
        #expect(try await RunsAsUser("root").evaluated(for: nobody).resolveStatus().kind == .denied)
        #expect(try await RunsAsUser("nobody").evaluated(for: nobody).resolveStatus().kind == .authorized)
        #expect(
            try await FileAccess("/etc/shadow", access: .read).evaluated(for: nobody).resolveStatus().kind == .denied)
        #expect(try await FileAccess("/etc/shadow", access: .read).resolveStatus().kind == .authorized)
        // A capability that does not conform cannot answer for another subject: undecided.
        let forNobody = await ThisProcessOnly().evaluated(for: nobody).resolveStatus()
        #expect(forNobody.kind == .unavailable)
        #expect(forNobody.reason.contains("cannot be decided for another subject"))
    }

    @Test(
        "PAM for a subject: its own user unless the capability names one, asked through its conversation only",
        .enabled(if: PAMTestModules.matrix != nil, "needs libpam-wrapper"))
    func pamForSubjects() async throws {
        let pam = try PAMServiceDirectory(passwords: ["alice:secret:subject-test", "nobody:nobody-secret:subject-test"])
        try pam.matrixService("subject-test")
        let nobody = try Subject.user(named: "nobody")
        func answering(_ password: String) -> ProgrammaticPAMConversation {
            ProgrammaticPAMConversation(secret: { PAMSecret(password) })
        }
        let own = try PAMLogin(service: "subject-test", serviceDirectory: pam.path)
        #expect(
            try await own.forSubject(nobody, conversation: answering("nobody-secret")).authorize().kind == .authorized)
        #expect(try await own.forSubject(nobody, conversation: answering("secret")).authorize().kind == .denied)
        #expect(own.forSubject(nobody, conversation: nil).name == "pam:subject-test:nobody")
        let admin = try PAMLogin(service: "subject-test", user: "alice", serviceDirectory: pam.path)
        #expect(try await admin.forSubject(nobody, conversation: answering("secret")).authorize().kind == .authorized)
        // Nobody to ask: dismissed, and nothing is read from this process's terminal.
        let unasked = try await admin.evaluated(for: nobody).authorize()
        #expect(unasked.kind == .notDetermined && unasked.reason.contains("nobody can answer"), "\(unasked)")
        // A uid without a user name has nobody to authenticate.
        let nameless = Subject.user(SubjectUser(uid: 4_000_001, gid: 4_000_001, supplementaryGroups: [], name: nil))
        #expect(await own.evaluated(for: nameless).resolveStatus().kind == .unavailable)
    }
}

/// A capability that answers only for this process.
private struct ThisProcessOnly: CapabilityType {
    var name: String { "this-process-only" }
    func status() async throws -> CapabilityStatus { .authorized("this process") }
}
