import CLinuxSupport
public import Capabilities
import ConfigurationFiles
import Glibc
import Locking
import SystemPackage

/// One client of a service: who the kernel says it is, and one request and reply each a line.
public final class ClientConnection: Sendable {
    /// The client, from the socket's peer credentials when it connected.
    public let subject: Subject
    private let descriptor: Int32
    private let replied = Lock(false)
    /// When the whole request line must be in.
    private let requestDeadline: ContinuousClock.Instant
    /// Held while this connection lives: what counts it against ``ClientLimits``.
    private let slot: ClientAdmission.Slot?

    /// The longest request line read.
    public static let requestLimit = 4096

    init(descriptor: Int32, subject: Subject, requestDeadline: ContinuousClock.Instant, slot: ClientAdmission.Slot?) {
        self.descriptor = descriptor
        self.subject = subject
        self.requestDeadline = requestDeadline
        self.slot = slot
    }

    deinit { try? FileDescriptor(rawValue: descriptor).close() }

    /// The client's request: one line of UTF-8 text without control characters, at most
    /// ``requestLimit`` bytes, all of it within the listener's ``ClientLimits/requestTimeout`` of
    /// the connection (a client sending a byte now and then gains nothing). Anything else is an
    /// error, and nothing of it is used.
    public func readRequest() throws(ServiceError) -> String {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            guard Self.waitReadable(descriptor, until: requestDeadline) else {
                throw ServiceError("the client sent no complete request line in time")
            }
            let count = read(descriptor, &byte, 1)
            if count < 0, errno == EINTR || errno == EAGAIN { continue }
            guard count == 1 else { throw ServiceError("the client sent no complete request line") }
            if byte == UInt8(ascii: "\n") { break }
            guard bytes.count < Self.requestLimit else {
                throw ServiceError("the request is longer than \(Self.requestLimit) bytes")
            }
            bytes.append(byte)
        }
        guard let text = String(validating: bytes, as: UTF8.self),
            !text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
        else { throw ServiceError("the request is not a line of text") }
        return text
    }

    /// Sends one reply line, once; later replies are ignored. Control characters in it (from a
    /// path or a name in a reason) are written visibly (`\xHH`, `\n`), so a reply is one line
    /// and cannot drive the client's terminal.
    public func reply(_ line: String) {
        let first = replied.withLock { done in
            defer { done = true }
            return !done
        }
        guard first else { return }
        _ = send(line)
    }

    /// Waits until `descriptor` has something to read (data, or its end) or `deadline` passes:
    /// false at the deadline.
    static func waitReadable(_ descriptor: Int32, until deadline: ContinuousClock.Instant) -> Bool {
        while true {
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { return false }
            let (seconds, attoseconds) = left.components
            let milliseconds = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, milliseconds)
            if ready > 0 { return true }
            if ready < 0, errno != EINTR { return true }  // the read that follows reports it
        }
    }

    /// Who answers PAM's questions on this connection: the client (``ClientPAMConversation``).
    public var conversation: any PAMConversation { ClientPAMConversation(connection: self) }

    /// Sends `line` (a relayed question, before the reply), control characters written
    /// visibly; false when it could not be sent (the client went away).
    func send(_ line: String) -> Bool {
        var bytes = Array(VisibleText.escaped(line).utf8) + [UInt8(ascii: "\n")]
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeMutableBytes {
                Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }

    /// Reads one answer line of at most `limit` bytes into `buffer` (which the caller zeroes),
    /// waiting at most `seconds`: its length, or nil when the client closed, took too long, or
    /// sent a longer line (the rest is not read: the connection is useless afterwards).
    func readAnswer(into buffer: UnsafeMutableBufferPointer<UInt8>, waiting seconds: Int) -> Int? {
        let deadline = ContinuousClock.now + .seconds(seconds)
        var count = 0
        var byte: UInt8 = 0
        defer { explicit_bzero(&byte, 1) }
        while true {
            guard Self.waitReadable(descriptor, until: deadline) else { return nil }
            let got = read(descriptor, &byte, 1)
            if got < 0, errno == EINTR || errno == EAGAIN { continue }
            guard got == 1 else { return nil }
            if byte == UInt8(ascii: "\n") { return count }
            guard count < buffer.count else { return nil }
            buffer[count] = byte
            count += 1
        }
    }
}
