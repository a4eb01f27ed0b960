import Glibc
import Plumbing
import SystemPackage
import Testing

@testable import Varlink

/// A connection served in turns (as capctld serves its clients from an epoll set): replies the
/// client has no room for are kept, not waited on, and every one still arrives, in order.
@Suite(.timeLimit(.minutes(1)))
struct VarlinkConnectionTests {
    @Test(
        "a client that sends 2,000 calls and reads no reply holds no thread: a turn answers what fits, and once it reads, every reply comes in order"
    )
    func clientThatDoesNotRead() throws {
        let (serviceEnd, clientEnd) = try FileDescriptor.socketPair()
        let service = LineConnection(owning: serviceEnd)
        let client = LineConnection(owning: clientEnd)
        var small: Int32 = 4096
        setsockopt(serviceEnd.rawValue, SOL_SOCKET, SO_SNDBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        // A reply that waited for the client would give up after a second and end the connection.
        var second = timeval(tv_sec: 1, tv_usec: 0)
        setsockopt(serviceEnd.rawValue, SOL_SOCKET, SO_SNDTIMEO, &second, socklen_t(MemoryLayout<timeval>.size))
        let connection = VarlinkConnection(
            connection: service,
            info: VarlinkServiceInfo(vendor: "test", product: "test", version: "1", url: "https://example.org"),
            interfaces: [])
        // Each call names an interface that is not there; its error reply names it back.
        let count = 2000
        let calls = (0..<count).map { #"{"method":"org.example.i\#($0).Get"}"# + "\u{0}" }.joined()
        #expect(Array(calls.utf8).withUnsafeBytes { client.write($0) })

        let first = connection.serveArrived()
        #expect(first == .writing, "the replies do not fit: the turn ends and keeps the rest")
        var replies: [String] = []
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        var turns = 1
        while replies.count < count, turns < 100_000 {
            while case let read = Glibc.recv(clientEnd.rawValue, &chunk, chunk.count, Int32(MSG_DONTWAIT)), read > 0 {
                received += chunk[..<read]
            }
            while let end = received.firstIndex(of: 0) {
                replies.append(String(decoding: received[..<end], as: UTF8.self))
                received.removeSubrange(...end)
            }
            guard replies.count < count else { break }
            let turn = connection.serveArrived()
            try #require(turn != .over, "after \(replies.count) replies")
            turns += 1
        }
        #expect(replies.count == count)
        for (index, reply) in replies.enumerated() where !reply.contains(#""org.example.i\#(index)""#) {
            Issue.record("reply \(index) is not its call's: \(reply)")
            break
        }
        #expect(replies.allSatisfy { $0.contains("org.varlink.service.InterfaceNotFound") })
    }

    @Test("the same call again is answered as the call it is, and a call that differs by a byte as its own")
    func repeatedCalls() throws {
        let (serviceEnd, clientEnd) = try FileDescriptor.socketPair()
        let service = LineConnection(owning: serviceEnd)
        let client = LineConnection(owning: clientEnd)
        let echo = VarlinkInterface(
            name: "org.example.echo",
            description: "interface org.example.echo\nmethod Say(text: string) -> (text: string)\n",
            methods: [
                "Say": { call, replies throws(VarlinkError) in
                    replies.reply([("text", .string(try call.string("text")))])
                }
            ])
        let connection = VarlinkConnection(
            connection: service,
            info: VarlinkServiceInfo(vendor: "test", product: "test", version: "1", url: "https://example.org"),
            interfaces: [echo])
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        for text in ["one", "one", "two", "one", "onf"] {
            let call = #"{"method":"org.example.echo.Say","parameters":{"text":"\#(text)"}}"# + "\u{0}"
            #expect(Array(call.utf8).withUnsafeBytes { client.write($0) })
            #expect(connection.serveArrived() == .answered)
            while !received.contains(0), case let read = Glibc.recv(clientEnd.rawValue, &chunk, chunk.count, 0),
                read > 0
            {
                received += chunk[..<read]
            }
            let end = try #require(received.firstIndex(of: 0))
            #expect(String(decoding: received[..<end], as: UTF8.self) == #"{"parameters":{"text":"\#(text)"}}"#)
            received.removeSubrange(...end)
        }
    }
}
