import Foundation
import Glibc
import Locking
import SystemPackage
import TestSupport
import Testing
import Varlink

/// What a service does with calls that are wrong: each either an error reply the client can read,
/// or, where nothing can be replied to (not a call at all), the connection closed. Never a crash,
/// never a reply to the wrong call. The certification checks valid calls only; these are the rest.
@Suite("varlink error paths", .timeLimit(.minutes(2)))
struct ErrorPathTests {
    static let echo = VarlinkInterface(
        name: "org.example.echo",
        description: """
            interface org.example.echo
            method Echo(text: string) -> (text: string)
            method Count(to: int) -> (number: int)
            method Silent() -> ()
            error Refused ()

            """,
        methods: [
            "Echo": { call, replies throws(VarlinkError) in
                try call.allowOnly(["text"])
                replies.reply([("text", .string(try call.string("text")))])
            },
            "Count": { call, replies throws(VarlinkError) in
                let last = try call.int("to")
                guard last > 0, last <= 100 else { throw .invalidParameter("to") }
                for number in 1..<last { try replies.replyContinuing([("number", .int(number))]) }
                replies.reply([("number", .int(last))])
            },
            "Silent": { _, _ throws(VarlinkError) in },
        ])

    /// What came back for `bytes` sent as they are, then the sending side closed: each message
    /// parsed, and how serving ended.
    static func exchange(_ bytes: [UInt8], limits: VarlinkLimits = VarlinkLimits(messageSize: 1024)) throws -> (
        replies: [[String: Any]], end: VarlinkService.End
    ) {
        let service = VarlinkService(
            info: VarlinkServiceInfo(vendor: "test", product: "echo", version: "1", url: "https://example.org"),
            interfaces: [echo], limits: limits)
        let (client, server) = try FileDescriptor.socketPairForTests()
        let end = Lock<VarlinkService.End?>(nil)
        let finished = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            end.withLock { $0 = service.serve(connection: server) }
            finished.signal()
        }
        _ = try? client.writeAll(bytes)
        shutdown(client.rawValue, Int32(SHUT_WR))
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = try chunk.withUnsafeMutableBytes { try client.read(into: $0) }
            if count == 0 { break }
            received += chunk[..<count]
        }
        try client.close()
        finished.wait()
        let replies = received.split(separator: 0, omittingEmptySubsequences: true).compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0))) as? [String: Any]
        }
        return (replies, end.withLock { $0 } ?? .closed)
    }

    static func call(_ json: String) -> [UInt8] { Array(json.utf8) + [0] }

    static func errorName(_ reply: [String: Any]?) -> String? { reply?["error"] as? String }

    // MARK: Not a call: nothing to reply to, the connection is closed

    @Test(
        "a message that is not a call closes the connection without a reply",
        arguments: [
            ("not JSON", Array("hello".utf8) + [0]),
            ("an array", call("[]")),
            ("no method", call("{}")),
            ("a method that is a number", call(#"{"method": 1}"#)),
            ("a method without an interface", call(#"{"method": "Echo"}"#)),
            ("an interface in capitals", call(#"{"method": "Org.example.echo.Echo"}"#)),
            ("a method in lower case", call(#"{"method": "org.example.echo.echo"}"#)),
            ("an interface with an empty part", call(#"{"method": "org..echo.Echo"}"#)),
            ("an interface ending in a dot", call(#"{"method": "org.example..Echo"}"#)),
            ("an interface part ending in a dash", call(#"{"method": "org.example-.Echo"}"#)),
            ("an interface part starting with a dash", call(#"{"method": "org.-example.Echo"}"#)),
            ("an interface starting with a digit", call(#"{"method": "2org.example.Echo"}"#)),
            ("an interface with an underscore", call(#"{"method": "org.ex_ample.Echo"}"#)),
            ("parameters that are an array", call(#"{"method": "org.example.echo.Echo", "parameters": []}"#)),
            ("more that is a string", call(#"{"method": "org.example.echo.Echo", "more": "yes"}"#)),
            ("a duplicate key", call(#"{"method": "org.example.echo.Echo", "method": "org.example.echo.Echo"}"#)),
            (
                "bytes that are not UTF-8",
                Array(#"{"method": "org.example.echo.Echo", "x": ""#.utf8) + [0xFF, 0x22, 0x7D, 0]
            ),
            (
                "an integer past 2^53",
                call(#"{"method": "org.example.echo.Count", "parameters": {"to": 9007199254740993}}"#)
            ),
            (
                "a message past the size limit",
                call(
                    #"{"method": "org.example.echo.Echo", "parameters": {"text": ""#
                        + String(repeating: "x", count: 2000) + #""}}"#)
            ),
            ("deep nesting", call(String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000))),
        ] as [(String, [UInt8])])
    func notACall(_ case: (String, [UInt8])) throws {
        let (replies, end) = try Self.exchange(`case`.1)
        #expect(replies.isEmpty, "\(`case`.0): \(replies)")
        guard case .refused = end else {
            Issue.record("\(`case`.0): \(end)")
            return
        }
    }

    @Test("a message cut off by the client's closing gets no reply")
    func unterminated() throws {
        let (replies, end) = try Self.exchange(Array(#"{"method": "org.example.echo.Echo", "parameters": {"#.utf8))
        #expect(replies.isEmpty && end == .closed, "\(replies) \(end)")
    }

    @Test("a client that sends nothing is closed at the idle timeout")
    func idle() throws {
        let service = VarlinkService(
            info: VarlinkServiceInfo(vendor: "test", product: "echo", version: "1", url: "https://example.org"),
            interfaces: [Self.echo], limits: VarlinkLimits(idleTimeout: .milliseconds(50)))
        let (client, server) = try FileDescriptor.socketPairForTests()
        defer { try? client.close() }
        guard case .refused(let why) = service.serve(connection: server) else {
            Issue.record("an idle client was kept")
            return
        }
        #expect(why.contains("no call within"), "\(why)")
    }

    // MARK: Calls that are wrong: an error reply, and the connection goes on

    @Test(
        "a wrong call gets the error varlink names for it, and the next call on the connection is answered",
        arguments: [
            (#"{"method": "org.example.nothing.Echo"}"#, "org.varlink.service.InterfaceNotFound"),
            // Dashes inside a part, digits after a part's start: a well-formed name nobody answers.
            (#"{"method": "org.ex-am-ple.2nd.Echo"}"#, "org.varlink.service.InterfaceNotFound"),
            (#"{"method": "org.example.echo.Shout"}"#, "org.varlink.service.MethodNotFound"),
            (#"{"method": "org.example.echo.Echo"}"#, "org.varlink.service.InvalidParameter"),
            (
                #"{"method": "org.example.echo.Echo", "parameters": {"text": 1}}"#,
                "org.varlink.service.InvalidParameter"
            ),
            (
                #"{"method": "org.example.echo.Echo", "parameters": {"text": null}}"#,
                "org.varlink.service.InvalidParameter"
            ),
            (
                #"{"method": "org.example.echo.Echo", "parameters": {"text": "a", "loud": true}}"#,
                "org.varlink.service.InvalidParameter"
            ),
            (#"{"method": "org.example.echo.Count", "parameters": {"to": 3}}"#, "org.varlink.service.ExpectedMore"),
            (
                #"{"method": "org.example.echo.Count", "parameters": {"to": 1.5}, "more": true}"#,
                "org.varlink.service.InvalidParameter"
            ),
            (
                #"{"method": "org.example.echo.Count", "parameters": {"to": -1}, "more": true}"#,
                "org.varlink.service.InvalidParameter"
            ),
            (
                #"{"method": "org.varlink.service.GetInterfaceDescription", "parameters": {"interface": "org.example.nothing"}}"#,
                "org.varlink.service.InterfaceNotFound"
            ),
            (#"{"method": "org.varlink.service.GetInterfaceDescription"}"#, "org.varlink.service.InvalidParameter"),
            (
                #"{"method": "org.varlink.service.GetInfo", "parameters": {"verbose": true}}"#,
                "org.varlink.service.InvalidParameter"
            ),
            (#"{"method": "org.varlink.service.Stop"}"#, "org.varlink.service.MethodNotFound"),
        ] as [(String, String)])
    func wrongCall(_ case: (String, String)) throws {
        let (replies, end) = try Self.exchange(
            Self.call(`case`.0) + Self.call(#"{"method": "org.example.echo.Echo", "parameters": {"text": "after"}}"#))
        #expect(replies.count == 2, "\(`case`.0): \(replies)")
        #expect(Self.errorName(replies.first) == `case`.1, "\(`case`.0): \(replies)")
        #expect((replies.last?["parameters"] as? [String: Any])?["text"] as? String == "after", "\(replies)")
        #expect(end == .closed)
    }

    @Test(
        "oneway gets no reply; a handler that forgot its reply still ends the call; pipelined calls answered in order")
    func ordering() throws {
        let (replies, _) = try Self.exchange(
            Self.call(#"{"method": "org.example.echo.Echo", "parameters": {"text": "1"}, "oneway": true}"#)
                + Self.call(#"{"method": "org.example.echo.Silent"}"#)
                + Self.call(#"{"method": "org.example.echo.Count", "parameters": {"to": 2}, "more": true}"#)
                + Self.call(#"{"method": "org.example.echo.Echo", "parameters": {"text": "4"}}"#))
        let shapes = replies.map { reply -> String in
            let parameters = reply["parameters"] as? [String: Any] ?? [:]
            let value = (parameters["text"] as? String) ?? (parameters["number"] as? Int).map(String.init) ?? "-"
            return value + ((reply["continues"] as? Bool) == true ? "+" : "")
        }
        #expect(shapes == ["-", "1+", "2", "4"], "\(replies)")
    }

    @Test("a vendor's extra member of a call is ignored, and upgrade is answered as a plain call")
    func extensions() throws {
        let (replies, _) = try Self.exchange(
            Self.call(#"{"method": "org.example.echo.Echo", "parameters": {"text": "x"}, "org.example.trace": "1"}"#)
                + Self.call(#"{"method": "org.example.echo.Echo", "parameters": {"text": "y"}, "upgrade": true}"#))
        #expect(replies.compactMap { ($0["parameters"] as? [String: Any])?["text"] as? String } == ["x", "y"])
    }

    // MARK: The client's side

    @Test("VarlinkClient: an error reply is the service's error, a reply that is not JSON is a connection failure")
    func clientErrors() async throws {
        let directory = try TemporaryDirectory(prefix: "varlink-client")
        let socket = directory.path + "/echo.sock"
        let service = VarlinkService(
            info: VarlinkServiceInfo(vendor: "test", product: "echo", version: "1", url: "https://example.org"),
            interfaces: [Self.echo])
        let listening = FileDescriptor(rawValue: try listeningUnixSocket(at: socket))
        let serving = await startedTask { try await service.run(adopting: listening) }
        defer { serving.cancel() }
        // Called off the tasks' shared threads: the service's task must be able to start meanwhile.
        let (refusal, echoed) = try await awaitBlocking { () throws -> (VarlinkClient.Failure?, VarlinkValue?) in
            let client = try VarlinkClient(path: socket)
            var refusal: VarlinkClient.Failure?
            do throws(VarlinkClient.Failure) { _ = try client.call("org.example.echo.Echo") } catch { refusal = error }
            return (refusal, try client.call("org.example.echo.Echo", [("text", .string("ok"))])["text"])
        }
        switch refusal {
        case .error(let error)?:
            #expect(error.name == "org.varlink.service.InvalidParameter")
            #expect(error[parameter: "parameter"] == .string("text"))
        default: Issue.record("not an error reply: \(String(describing: refusal))")
        }
        #expect(echoed == .string("ok"))
        // A "service" that answers garbage.
        let garbage = directory.path + "/garbage.sock"
        let listener = try listeningUnixSocket(at: garbage)
        defer { close(listener) }
        DispatchQueue.global().async {
            let connection = accept(listener, nil, nil)
            var buffer = [UInt8](repeating: 0, count: 1024)
            _ = read(connection, &buffer, buffer.count)
            _ = write(connection, "not json\0", 9)
            close(connection)
        }
        let confused = try VarlinkClient(path: garbage)
        do {
            _ = try confused.call("org.example.echo.Echo", [("text", .string("x"))])
            Issue.record("garbage taken for a reply")
        } catch .connection(let why) {
            #expect(why.contains("not JSON"), "\(why)")
        } catch {
            Issue.record("\(error)")
        }
    }
}

extension FileDescriptor {
    /// A connected pair of Unix stream sockets, close-on-exec.
    static func socketPairForTests() throws -> (FileDescriptor, FileDescriptor) {
        var pair: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            throw Errno(rawValue: errno)
        }
        return (FileDescriptor(rawValue: pair[0]), FileDescriptor(rawValue: pair[1]))
    }
}
