import CLinuxSupport
import Foundation
import Glibc
import LinuxBackends
import Locking
import ServiceLifecycleTestKit
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

    @Test("past the per-user limit a client is told it is busy and closed, and a released slot serves the next")
    func perUserLimit() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/service.sock"
        let listener = try ClientListener(path: path, limits: ClientLimits(perUser: 2, total: 10))
        var clients = (0..<3).map { _ in clinux_unix_socket(path, Int32(SOCK_STREAM.rawValue), CLINUX_UNIX_CONNECT) }
        defer { for client in clients { Glibc.close(client) } }
        try #require(clients.allSatisfy { $0 >= 0 })
        let held = Lock<[ClientConnection]>([try listener.accept(), try listener.accept()])
        // The next accept refuses the third at once and goes on waiting; a fourth that connects
        // after a slot was given back is admitted.
        let next = Lock<Result<ClientConnection, ServiceError>?>(nil)
        let accepted = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            next.withLock { $0 = Result { () throws(ServiceError) in try listener.accept() } }
            accepted.signal()
        }
        #expect(Self.line(from: clients[2]).hasPrefix("error: busy: uid \(getuid()) has 2 connections open"))
        #expect(Self.line(from: clients[2]) == "", "and closed")
        held.withLock { _ = $0.removeFirst() }
        clients.append(clinux_unix_socket(path, Int32(SOCK_STREAM.rawValue), CLINUX_UNIX_CONNECT))
        accepted.wait()
        let fourth = try #require(try next.withLock { $0 }?.get())
        #expect(fourth.subject.process?.pid == getpid())
        #expect(
            OpenDescriptors.count(socketsAt: path) == 3, "the listener and two connections: the refused one is closed")
    }

    @Test("a request must be complete within the request timeout, however slowly its bytes come")
    func requestDeadline() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/service.sock"
        let listener = try ClientListener(path: path, limits: ClientLimits(requestTimeout: .milliseconds(300)))
        let client = clinux_unix_socket(path, Int32(SOCK_STREAM.rawValue), CLINUX_UNIX_CONNECT)
        try #require(client >= 0)
        defer { _ = Glibc.close(client) }
        _ = Array("resta".utf8).withUnsafeBytes { write(client, $0.baseAddress, $0.count) }
        let connection = try listener.accept()
        let error = #expect(throws: ServiceError.self) { try connection.readRequest() }
        #expect(error?.description == "the client sent no complete request line in time")
    }

    /// One line from `descriptor`, without its newline; empty at its end.
    private static func line(from descriptor: Int32) -> String {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while read(descriptor, &byte, 1) == 1, byte != 10 { bytes.append(byte) }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test(
        "serve() in a ServiceGroup: graceful shutdown stops accepting, the client being served finishes, then it returns"
    )
    func servesUntilGracefulShutdown() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/service.sock"
        let listener = try ClientListener(path: path)
        let served = Latch()
        let release = DispatchSemaphore(value: 0)
        let finished = Latch()
        let client = clinux_unix_socket(path, Int32(SOCK_STREAM.rawValue), CLINUX_UNIX_CONNECT)
        try #require(client >= 0)
        defer { _ = Glibc.close(client) }
        try await testGracefulShutdown { trigger in
            let serving = Task {
                try await listener.serve { _ in
                    served.open()
                    release.wait()
                    finished.open()
                }
            }
            await served.wait()
            trigger.triggerGracefulShutdown()
            release.signal()
            try await serving.value
        }
        #expect(finished.isOpen, "the client being served finished before serve() returned")
        #expect(listener.clientCount == 0)
    }

    @Test("clients() yields each admitted client identified, and ending the iteration shuts the listener down")
    func clientSequence() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/service.sock"
        let listener = try ClientListener(path: path)
        let first = clinux_unix_socket(path, Int32(SOCK_STREAM.rawValue), CLINUX_UNIX_CONNECT)
        let second = clinux_unix_socket(path, Int32(SOCK_STREAM.rawValue), CLINUX_UNIX_CONNECT)
        defer {
            _ = Glibc.close(first)
            _ = Glibc.close(second)
        }
        var pids: [Int32?] = []
        for await client in listener.clients() {
            pids.append(client.subject.process?.pid)
            if pids.count == 2 { break }
        }
        #expect(pids == [getpid(), getpid()])
        // Shut down: accepting fails at once rather than waiting.
        #expect(throws: ServiceError.self) { try listener.accept() }
    }
}
