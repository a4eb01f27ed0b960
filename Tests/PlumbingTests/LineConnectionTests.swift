import Glibc
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
}
