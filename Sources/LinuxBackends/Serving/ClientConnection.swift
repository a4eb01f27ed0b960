import CLinuxSupport
public import Capabilities
import ConfigurationFiles
import Glibc
import Locking
package import Plumbing
import SystemPackage

/// One client of a service: who the kernel says it is, and one request and reply each a line.
public final class ClientConnection: Sendable {
    /// The client, from the socket's peer credentials when it connected.
    public let subject: Subject
    private let connection: LineConnection
    private let replied = Lock(false)
    /// When the whole request line must be in.
    private let requestDeadline: ContinuousClock.Instant
    /// Held while this connection lives: what counts it against ``ClientLimits``.
    private let slot: ClientAdmission.Slot?

    /// The longest request line read.
    public static let requestLimit = 4096

    init(
        connection: LineConnection, subject: Subject, requestDeadline: ContinuousClock.Instant,
        slot: ClientAdmission.Slot?
    ) {
        self.connection = connection
        self.subject = subject
        self.requestDeadline = requestDeadline
        self.slot = slot
    }

    /// The client's request: one line of UTF-8 text without control characters, at most
    /// ``requestLimit`` bytes, all of it within the listener's ``ClientLimits/requestTimeout`` of
    /// the connection (a client sending a byte now and then gains nothing). Anything else is an
    /// error, and nothing of it is used.
    public func readRequest() throws(ServiceError) -> String {
        // Byte by byte: whatever the client sends after its request (a PAM answer) is left unread.
        let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: Self.requestLimit)
        defer { buffer.deallocate() }
        let count: Int
        switch connection.readLine(into: buffer, until: requestDeadline) {
        case .success(let read): count = read
        case .failure(let end):
            switch end.read {
            case .timedOut: throw ServiceError("the client sent no complete request line in time")
            case .tooLong: throw ServiceError("the request is longer than \(Self.requestLimit) bytes")
            default: throw ServiceError("the client sent no complete request line")
            }
        }
        guard let text = String(validating: UnsafeBufferPointer(rebasing: buffer[..<count]), as: UTF8.self),
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

    /// The connection itself, for a protocol of the service's own (varlink).
    package var lineConnection: LineConnection { connection }

    /// The client's process id as the kernel recorded it at connect time (`SO_PEERCRED`); nil
    /// when it cannot be read. What binds a second connection of the same process to this one,
    /// never a subject: the pid may have been reused since.
    package var peerProcessID: Int32? {
        var (pid, uid, gid): (Int32, UInt32, UInt32) = (0, 0, 0)
        return clinux_socket_peer_credentials(connection.descriptor.rawValue, &pid, &uid, &gid) == 0 ? pid : nil
    }

    /// Who answers PAM's questions on this connection: the client (``ClientPAMConversation``).
    public var conversation: any PAMConversation { ClientPAMConversation(connection: self) }

    /// Sends `line` (a relayed question, before the reply), control characters written
    /// visibly; false when it could not be sent (the client went away).
    func send(_ line: String) -> Bool {
        connection.writeLine(VisibleText.escaped(line))
    }

    /// Reads one answer line of at most `buffer.count` bytes into `buffer` (which the caller
    /// zeroes), waiting at most `seconds` for the whole line: its length, or nil when the client
    /// closed, took too long, or sent a longer line (the rest is not read: the connection is
    /// useless afterwards).
    func readAnswer(into buffer: UnsafeMutableBufferPointer<UInt8>, waiting seconds: Int) -> Int? {
        try? connection.readLine(into: buffer, until: .now + .seconds(seconds)).get()
    }
}
