import Foundation
import Glibc
import SystemPackage
import TestSupport
import Testing
import Varlink

/// `org.varlink.certification` both ways against the Python varlink package (pinned, from PyPI):
/// its certification client against a `VarlinkService` of this library, and a `VarlinkClient`
/// of this library against its certification server.
@Suite("varlink certification", .serialized, .timeLimit(.minutes(2)))
struct CertificationTests {
    static let info = VarlinkServiceInfo(
        vendor: "capctl", product: "certification", version: "1", url: "https://varlink.org")

    @Test("the Python package's certification client passes against a VarlinkService")
    func pythonClientAgainstOurService() async throws {
        let python = try #require(VarlinkPython.interpreter, "no varlink venv: run Scripts/test")
        let directory = try TemporaryDirectory(prefix: "varlink-certification")
        let socket = directory.path + "/certification.sock"
        let progress = CertificationService.Progress()
        let service = VarlinkService(info: Self.info, interfaces: [CertificationService.interface(progress)])
        let listener = FileDescriptor(rawValue: try listeningUnixSocket(at: socket))
        let serving = await startedTask { try await service.run(adopting: listener) }
        defer { serving.cancel() }
        let run = try runProcess(
            python, ["-m", "varlink.tests.test_certification", "--client", "--varlink=unix:" + socket])
        #expect(run.status == 0, "\(run.standardOutput)\(run.standardError)")
        #expect(run.standardOutput.contains("Certification passed"), "\(run.standardOutput)\(run.standardError)")
        #expect(run.standardOutput.contains("'all_ok': True"), "\(run.standardOutput)")
        #expect(progress.failures.withLock { $0 } == [])
    }

    @Test("a VarlinkClient passes against the Python package's certification server")
    func ourClientAgainstPythonService() async throws {
        let python = try #require(VarlinkPython.interpreter, "no varlink venv: run Scripts/test")
        let directory = try TemporaryDirectory(prefix: "varlink-certification")
        let socket = directory.path + "/certification.sock"
        // Listening before the server starts (socket activation, which the package reads): a
        // socket path that exists is not yet one that accepts, and a wait for it was refused.
        let listener = try listeningUnixSocket(at: socket)
        defer { close(listener) }
        let server = try DaemonProcess(
            [
                "/bin/sh", "-c", #"LISTEN_PID=$$ LISTEN_FDS=1 exec "$0" "$@""#, python, "-m",
                "varlink.tests.test_certification", "--varlink=unix:" + socket,
            ], environment: [:], listening: listener)
        defer { server.stop() }
        let client = try VarlinkClient(path: socket)
        let method = "org.varlink.certification."
        guard case .string(let id)? = try client.call(method + "Start")["client_id"] else {
            Issue.record("Start gave no client_id")
            return
        }
        let me: (key: String, value: VarlinkValue) = ("client_id", .string(id))
        #expect(try client.call(method + "Test01", [me])["bool"] == .bool(true))
        #expect(try client.call(method + "Test02", [me, ("bool", .bool(true))])["int"] == .int(1))
        let test03 = try client.call(method + "Test03", [me, ("int", .int(1))])["float"]
        #expect(test03 == .int(1) || test03 == .float(1), "\(String(describing: test03))")
        #expect(try client.call(method + "Test04", [me, ("float", .float(1))])["string"] == .string("ping"))
        let test05 = try client.call(method + "Test05", [me, ("string", .string("ping"))])
        #expect(CertificationService.same(test05, CertificationService.struct5), "\(test05.json)")
        guard case .object(let five) = CertificationService.struct5 else { return }
        let test06 = try client.call(method + "Test06", [me] + five)
        #expect(CertificationService.same(test06["struct"], CertificationService.struct5), "\(test06.json)")
        let test07 = try client.call(method + "Test07", [me, ("struct", CertificationService.struct5)])
        #expect(CertificationService.same(test07["map"], CertificationService.map), "\(test07.json)")
        let test08 = try client.call(method + "Test08", [me, ("map", CertificationService.map)])
        #expect(CertificationService.same(test08["set"], CertificationService.set), "\(test08.json)")
        let test09 = try client.call(method + "Test09", [me, ("set", CertificationService.set)])
        let myType = try #require(test09["mytype"])
        #expect(CertificationService.same(myType, CertificationService.myType), "\(test09.json)")
        var replies: [VarlinkValue] = []
        try client.callMore(method + "Test10", [me, ("mytype", myType)]) { reply in
            replies.append(reply["string"] ?? .null)
            return true
        }
        #expect(replies == CertificationService.moreReplies.map(VarlinkValue.string))
        try client.callOneway(method + "Test11", [me, ("last_more_replies", .array(replies))])
        #expect(try client.call(method + "End", [me])["all_ok"] == .bool(true))
    }
}
