import CLinuxSupport
import Capabilities
import Foundation
import Glibc
import LinuxBackends
import TestSupport
import Testing

/// Subjects as the kernel identifies them: a real Unix socket's peer as uid 65534.
@Suite("subjects", .enabled(if: geteuid() == 0, "needs root to run a client as uid 65534"), .timeLimit(.minutes(1)))
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
        #expect(subject.pid == client.pid)
        #expect(subject.startTime != nil)
        #expect(subject.source == .socketPeer)
        // The same answers as for the process by its id.
        let process = try Subject.process(client.pid)
        #expect(process.uid == subject.uid && process.startTime == subject.startTime)
        #expect(Set(process.supplementaryGroups) == Set(subject.supplementaryGroups))
        // A peer that has exited is a subject without a process: nothing can be asked of a pid
        // that may be reused.
        client.stop()
        let gone = try Subject.peer(of: connection)
        #expect(gone.uid == 65534)
        #expect(gone.pid == nil && gone.startTime == nil)
        #expect(throws: SubjectError.self) { try Subject.process(client.pid) }
    }

    @Test("capabilities answer for the subject; one that cannot is unavailable, never a pass")
    func capabilitiesForSubjects() async throws {
        let nobody = try Subject.user(named: "nobody")
        #expect(try await RunsAsUser("root").evaluated(for: nobody).resolveStatus().kind == .denied)
        #expect(try await RunsAsUser("nobody").evaluated(for: nobody).resolveStatus().kind == .authorized)
        #expect(
            try await FileAccess("/etc/shadow", access: .read).evaluated(for: nobody).resolveStatus().kind == .denied)
        #expect(try await FileAccess("/etc/shadow", access: .read).resolveStatus().kind == .authorized)
        let pam = try PAMLogin(service: "login", user: "root")
        let forNobody = await pam.evaluated(for: nobody).resolveStatus()
        #expect(forNobody.kind == .unavailable)
        #expect(forNobody.reason.contains("cannot be decided for another subject"))
    }
}
