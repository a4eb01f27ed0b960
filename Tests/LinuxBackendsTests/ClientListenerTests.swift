import CLinuxSupport
import Foundation
import Glibc
import LinuxBackends
import TestSupport
import Testing

/// The service socket: who a client is, and what a listener gives back.
@Suite
struct ClientListenerTests {
    @Test("a listener and the connections it accepted close their sockets when released, and the socket file goes")
    func lifecycle() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/service.sock"
        var listener: ClientListener? = try ClientListener(path: path)
        // Connecting before accepting: the kernel queues the connection, so accept returns at once.
        let client = clinux_unix_socket(path, Int32(SOCK_STREAM.rawValue), CLINUX_UNIX_CONNECT)
        try #require(client >= 0)
        defer { _ = Glibc.close(client) }
        var connection: ClientConnection? = try listener?.accept()
        #expect(connection?.subject.uid == getuid(), "the peer is this process")
        #expect(OpenDescriptors.count(socketsAt: path) == 2, "the listener and one accepted connection")

        connection = nil
        #expect(OpenDescriptors.count(socketsAt: path) == 1, "a released connection closes its socket")
        listener = nil
        #expect(OpenDescriptors.count(socketsAt: path) == 0, "a released listener closes its socket")
        #expect(!FileManager.default.fileExists(atPath: path), "and removes the socket file")
    }

    @Test("a listener refuses to replace a file that is not a socket, and leaves it")
    func refusesOtherFiles() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/not-a-socket"
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: path))
        #expect(throws: ServiceError.self) { try ClientListener(path: path) }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "keep me")
        #expect(OpenDescriptors.count(referringTo: path) == 0)
    }
}
