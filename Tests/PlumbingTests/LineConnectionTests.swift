import Dispatch
import Glibc
import Locking
import Plumbing
import SystemPackage
import Testing

/// The one reader and writer of lines: bounded in length and time, nothing read past a line
/// that holds a secret, writes that say when the peer is gone.
@Suite
struct LineConnectionTests {
    private func pair() throws -> (LineConnection, LineConnection) {
        let (a, b) = try FileDescriptor.socketPair()
        return (LineConnection(owning: a), LineConnection(owning: b))
    }

    @Test("lines come one by one however they were written; the peer's end is the end")
    func lines() throws {
        let (near, far) = try pair()
        #expect(far.writeLine("one\ntwo"))
        #expect(near.readLine(limit: 16) == .line(Array("one".utf8)))
        #expect(near.readLine(limit: 16) == .line(Array("two".utf8)))
        #expect(far.writeLine("partial") && far.write(UnsafeRawBufferPointer(start: nil, count: 0)))
        far.close()
        #expect(near.readLine(limit: 16) == .line(Array("partial".utf8)))
        #expect(near.readLine(limit: 16) == .end)
    }

    @Test("a line past the limit is refused, not cut")
    func tooLong() throws {
        let (near, far) = try pair()
        #expect(far.writeLine(String(repeating: "x", count: 100)))
        #expect(near.readLine(limit: 99) == .tooLong)
        let (secretNear, secretFar) = try pair()
        #expect(secretFar.writeLine(String(repeating: "x", count: 100)))
        let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 99)
        defer { buffer.deallocate() }
        switch secretNear.readLine(into: buffer) {
        case .failure(let end): #expect(end.read == .tooLong)
        case .success(let count): Issue.record("read \(count) bytes into a buffer of 99")
        }
    }

    @Test("a line read into a buffer reads nothing after it; what a buffered read took ahead comes first")
    func byteByByte() throws {
        let (near, far) = try pair()
        #expect(far.writeLine("secret\nnext"))
        let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 16)
        defer { buffer.deallocate() }
        let count = try near.readLine(into: buffer).get()
        #expect(Array(buffer[..<count]) == Array("secret".utf8))
        #expect(near.readLine(limit: 16) == .line(Array("next".utf8)))
        #expect(far.writeLine("a\nb"))
        #expect(near.readLine(limit: 16) == .line(Array("a".utf8)))
        #expect(try near.readLine(into: buffer).get() == 1 && buffer[0] == UInt8(ascii: "b"))
    }

    @Test("the deadline is for the whole line; an interrupt ends the wait")
    func deadlineAndInterrupt() throws {
        let (near, far) = try pair()
        #expect(Array("no line feed".utf8).withUnsafeBytes { far.write($0) })
        #expect(near.readLine(limit: 64, until: .now + .milliseconds(50)) == .timedOut)
        let (interrupt, interrupter) = try pair()
        #expect(interrupter.writeLine(""))
        #expect(near.readLine(limit: 64, interrupt: interrupt.descriptor) == .interrupted)
        _ = far
    }

    @Test("writing to a peer that is gone fails, without SIGPIPE; a closed connection writes nothing")
    func writesThatFail() throws {
        let (near, far) = try pair()
        far.close()
        #expect(!near.writeLine("anyone?"))
        near.close()
        near.close()
        #expect(!near.writeLine("after close"))
    }

    /// Bytes that tell their place: a message cut, reordered or repeated reads differently.
    private static func numbered(_ count: Int, from start: Int = 0) -> [UInt8] {
        (start..<(start + count)).map { UInt8(truncatingIfNeeded: $0 % 251) }
    }

    /// Everything `connection`'s peer sent until it closed (on a thread of its own).
    private final class Reader: Sendable {
        private let done = DispatchSemaphore(value: 0)
        private let read = Lock<[UInt8]>([])

        init(_ connection: LineConnection) throws {
            let started = DetachedThread.start(named: "reader") { [self] in
                var bytes = [UInt8](repeating: 0, count: 65_536)
                while true {
                    let count = Glibc.read(connection.descriptor.rawValue, &bytes, bytes.count)
                    if count < 0, errno == EINTR { continue }
                    guard count > 0 else { break }
                    read.withLock { $0.append(contentsOf: bytes[..<count]) }
                }
                done.signal()
            }
            try #require(started)
        }

        /// What was read, once the peer closed (or nil after 60 s).
        func all() -> [UInt8]? {
            done.wait(timeout: .now() + 60) == .success ? read.withLock { $0 } : nil
        }
    }

    @Test(
        "a write that does not wait keeps what the peer has no room for and sends it first; with one kept, the next waits"
    )
    func writesWithoutWaiting() throws {
        let (near, far) = try pair()
        var small: Int32 = 4096
        setsockopt(near.descriptor.rawValue, SOL_SOCKET, SO_SNDBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        let first = Self.numbered(1 << 20)
        // Nobody reads: most of a MiB is kept, and trying again sends nothing more.
        #expect(first.withUnsafeBytes { near.writeWithoutWaiting($0) } == .kept)
        #expect(near.keepsOutput)
        #expect(near.flushKept() == .kept)
        // The peer reads what comes, bit by bit, while this side sends what was kept as room appears.
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        var flushed = LineConnection.Sent.kept
        while flushed == .kept {
            var entry = pollfd(fd: far.descriptor.rawValue, events: Int16(POLLIN), revents: 0)
            try #require(poll(&entry, 1, 60_000) == 1)
            let count = Glibc.recv(far.descriptor.rawValue, &chunk, chunk.count, Int32(MSG_DONTWAIT))
            if count > 0 { received += chunk[..<count] }
            flushed = near.flushKept()
        }
        #expect(flushed == .all && !near.keepsOutput)
        // Another message kept, and the one after it waits for the peer to read, then follows.
        let second = Self.numbered(1 << 20, from: 7)
        #expect(second.withUnsafeBytes { near.writeWithoutWaiting($0) } == .kept)
        let reader = try Reader(far)
        let third = Self.numbered(1000, from: 3)
        #expect(third.withUnsafeBytes { near.writeWithoutWaiting($0) } == .all)
        near.close()
        received += try #require(reader.all())
        #expect(received.count == first.count + second.count + third.count)
        #expect(received == first + second + third, "in order, nothing repeated or lost")
        #expect(near.flushKept() == .failed)
    }
}
