import Foundation
import Glibc
import SystemPackage
import TestSupport
import Testing
import Varlink

/// Where a service listens: a socket it makes at a path, or one it is handed already listening
/// (systemd's socket activation), which it must leave listening for the one who shares it.
@Suite("varlink listening sockets", .timeLimit(.minutes(2)))
struct ListeningSocketTests {
    static func service() -> VarlinkService {
        VarlinkService(
            info: VarlinkServiceInfo(vendor: "test", product: "echo", version: "1", url: "https://example.org"),
            interfaces: [ErrorPathTests.echo])
    }

    /// Off the tasks' shared threads: the service's task must be able to start meanwhile.
    static func echo(_ text: String, at socket: String) async throws -> VarlinkValue? {
        try await awaitBlocking {
            try VarlinkClient(path: socket).call("org.example.echo.Echo", [("text", .string(text))])["text"]
        }
    }

    @Test("an adopted socket is served at once; cancelled, the service leaves it listening, and its file in place")
    func adopted() async throws {
        let directory = try TemporaryDirectory(prefix: "varlink-adopted")
        let socket = directory.path + "/echo.sock"
        let listener = try listeningUnixSocket(at: socket)
        // The copy systemd would keep.
        let kept = dup(listener)
        defer { close(kept) }
        let first = await startedTask { try await Self.service().run(adopting: FileDescriptor(rawValue: listener)) }
        #expect(try await Self.echo("one", at: socket) == .string("one"))
        first.cancel()
        try await first.value
        #expect(OpenDescriptors.count(socketsAt: socket) == 1, "the service closed its descriptor, not the copy")
        #expect(FileManager.default.fileExists(atPath: socket))
        // Still listening: a client connects while no service runs, and the next one serves it.
        let second = await startedTask { try await Self.service().run(adopting: FileDescriptor(rawValue: dup(kept))) }
        defer { second.cancel() }
        #expect(try await Self.echo("two", at: socket) == .string("two"))
    }

    @Test(
        "a descriptor that is not a listening Unix stream socket is refused and closed",
        arguments: ["bound", "datagram"])
    func refused(kind: String) async throws {
        let directory = try TemporaryDirectory(prefix: "varlink-refused")
        let socket = directory.path + "/" + kind + ".sock"
        let descriptor = try boundUnixSocket(at: socket, datagram: kind == "datagram")
        await #expect(throws: Errno.invalidArgument) {
            try await Self.service().run(adopting: FileDescriptor(rawValue: descriptor))
        }
        #expect(
            OpenDescriptors.count(socketsAt: socket) == 0, "the service owns the descriptor, even when it refuses it")
    }

    @Test("run(listeningOn:) makes the socket, refuses a path that exists, and removes its file when cancelled")
    func listeningOnPath() async throws {
        let directory = try TemporaryDirectory(prefix: "varlink-path")
        let taken = directory.path + "/taken"
        try Data("keep".utf8).write(to: URL(fileURLWithPath: taken))
        await #expect(throws: Errno.addressInUse) { try await Self.service().run(listeningOn: taken) }
        #expect(try String(contentsOfFile: taken, encoding: .utf8) == "keep")

        let socket = directory.path + "/echo.sock"
        let serving = Task { try await Self.service().run(listeningOn: socket) }
        try await awaitListening(socket)
        #expect(try await Self.echo("three", at: socket) == .string("three"))
        serving.cancel()
        try await serving.value
        #expect(!FileManager.default.fileExists(atPath: socket))
    }
}
