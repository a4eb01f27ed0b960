import Locking
package import SystemPackage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A descriptor that speaks lines, and owns it: closed exactly once, by ``close()`` or when the
/// connection is released. The one reader and writer of lines in the package: a service's client
/// socket, the polkit agent helper's socket, capctl's flag helper's pipes.
///
/// Reading is bounded in length and in time (a monotonic deadline for the whole line, however
/// slowly its bytes come) and reads nothing past the line's end, so what a peer sends next is
/// left for the next read; writing writes everything or says it could not (on a socket, with
/// EPIPE rather than SIGPIPE: give a peer that may go away a socket, not a pipe), or, on a socket,
/// writes what the peer has room for and keeps the rest to send first (``writeWithoutWaiting(_:)``).
/// A line holding a secret is read into the caller's buffer, byte by byte, and nothing of it
/// stays here.
package final class LineConnection: Sendable {
    /// How a read ended.
    package enum Read: Equatable, Sendable {
        /// A whole line, without its terminator.
        case line([UInt8])
        /// The peer closed (or the read failed) before a line feed; what came of the line is dropped.
        case end
        /// The deadline passed first.
        case timedOut
        /// The line is longer than the limit; the rest of it is not read.
        case tooLong
        /// The interrupt descriptor became readable first.
        case interrupted
    }

    /// The most a single read takes.
    private static let chunkSize = 65_536

    /// The descriptor, owned by this connection.
    package let descriptor: FileDescriptor
    private let isSocket: Bool
    private let output = Lock(Output())
    /// Whether the descriptor is closed, and bytes written that the socket has not taken yet.
    private struct Output {
        var closed = false
        var kept: [UInt8] = []
    }
    /// Bytes read past the last line returned; one reader at a time.
    private let pending = Lock<[UInt8]>([])

    /// A connection owning `descriptor`.
    package init(owning descriptor: FileDescriptor) {
        self.descriptor = descriptor
        var info = stat()
        isSocket = fstat(descriptor.rawValue, &info) == 0 && (info.st_mode & S_IFMT) == S_IFSOCK
    }

    deinit { close() }

    /// Closes the descriptor, once; later reads end and writes fail.
    package func close() {
        let first = output.withLock { output in
            defer {
                output.closed = true
                output.kept = []
            }
            return !output.closed
        }
        if first { try? descriptor.close() }
    }

    /// The next line of at most `limit` bytes, waiting until `deadline` (nil: as long as it
    /// takes) or until `interrupt` becomes readable. Reads ahead in chunks (a line of megabytes
    /// costs a few reads, not one per byte); what came after the line waits for the next read.
    /// `terminator` ends a line: a line feed, or a NUL for protocols that end messages with one
    /// (varlink).
    package func readLine(
        limit: Int, until deadline: ContinuousClock.Instant? = nil, interrupt: FileDescriptor? = nil,
        terminator: UInt8 = UInt8(ascii: "\n")
    ) -> Read {
        while true {
            if let buffered = bufferedLine(limit: limit, terminator: terminator) { return buffered }
            switch waitReadable(until: deadline, interrupt: interrupt) {
            case .ready: break
            case .timedOut: return .timedOut
            case .interrupted: return .interrupted
            }
            let count = readChunk(waiting: true)
            if count < 0, errno == EINTR || errno == EAGAIN { continue }
            guard count > 0 else { return .end }
        }
    }

    /// The next line if a whole one has been read already (`.tooLong` when what is read has no
    /// terminator within `limit` bytes); nil when none is complete yet.
    package func bufferedLine(limit: Int, terminator: UInt8) -> Read? {
        pending.withLock { pending -> Read? in
            if let newline = pending.firstIndex(of: terminator) {
                guard newline <= limit else { return .tooLong }
                let line = Array(pending[..<newline])
                pending.removeSubrange(...newline)
                return .line(line)
            }
            return pending.count > limit ? .tooLong : nil
        }
    }

    /// Reads what has arrived, once, without waiting for more (a socket an epoll set found
    /// readable): whether the connection is still open (false: the peer closed it, or it failed).
    package func receiveArrived() -> Bool {
        while true {
            let count = readChunk(waiting: false)
            if count > 0 { return true }
            if count < 0, errno == EINTR { continue }
            return count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)
        }
    }

    /// One read into the pending bytes; its count, or -1 with errno set.
    private func readChunk(waiting: Bool) -> Int {
        // Read into uninitialized scratch space, not a new zero-filled array: messages are a few
        // hundred bytes, and clearing 64 KiB for each was a visible share of a varlink call.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.chunkSize) { chunk in
            let count =
                waiting || !isSocket
                ? Glibc.read(descriptor.rawValue, chunk.baseAddress, chunk.count)
                : Glibc.recv(descriptor.rawValue, chunk.baseAddress, chunk.count, Int32(MSG_DONTWAIT))
            if count > 0 { pending.withLock { $0.append(contentsOf: chunk[..<count]) } }
            return count
        }
    }

    /// The next line read into `buffer` (which bounds it): its length, or how the read ended.
    /// Byte by byte, so no copy of a secret line is left anywhere but in `buffer`, and nothing
    /// after the line is read.
    package func readLine(
        into buffer: UnsafeMutableBufferPointer<UInt8>, until deadline: ContinuousClock.Instant? = nil,
        interrupt: FileDescriptor? = nil
    ) -> Result<Int, ReadEnd> {
        var count = 0
        var byte: UInt8 = 0
        defer { explicit_bzero(&byte, 1) }
        while true {
            // What an earlier line read ahead comes first.
            let ahead = pending.withLock { pending -> UInt8? in pending.isEmpty ? nil : pending.removeFirst() }
            if let ahead {
                byte = ahead
            } else {
                switch waitReadable(until: deadline, interrupt: interrupt) {
                case .ready: break
                case .timedOut: return .failure(ReadEnd(.timedOut))
                case .interrupted: return .failure(ReadEnd(.interrupted))
                }
                let got = Glibc.read(descriptor.rawValue, &byte, 1)
                if got < 0, errno == EINTR || errno == EAGAIN { continue }
                guard got == 1 else { return .failure(ReadEnd(.end)) }
            }
            if byte == UInt8(ascii: "\n") { return .success(count) }
            guard count < buffer.count else { return .failure(ReadEnd(.tooLong)) }
            buffer[count] = byte
            count += 1
        }
    }

    /// A ``Read`` that is not a line, as an error.
    package struct ReadEnd: Error, Equatable {
        package let read: Read
        init(_ read: Read) { self.read = read }
    }

    /// Writes all of `bytes` (after what an earlier ``writeWithoutWaiting(_:)`` kept), waiting
    /// for the peer to read as long as the socket's send timeout allows; false when the peer is
    /// gone, the write failed or the connection is closed. Under the lock ``close()`` takes, so a
    /// write never reaches a descriptor number closed meanwhile and given to another file.
    @discardableResult
    package func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        output.withLock { output in !output.closed && writeAllAfterKept(bytes, &output) }
    }

    /// Writes what was kept, then `bytes`, waiting as ``write(_:)`` does; with the lock held.
    private func writeAllAfterKept(_ bytes: UnsafeRawBufferPointer, _ output: inout Output) -> Bool {
        if !output.kept.isEmpty {
            guard output.kept.withUnsafeBytes({ writeAll($0) }) else { return false }
            output.kept = []
        }
        return writeAll(bytes)
    }

    /// How a write that does not wait went.
    package enum Sent: Equatable, Sendable {
        /// Everything is sent.
        case all
        /// Some is kept: the peer's socket is full until it reads.
        case kept
        /// The peer is gone, the write failed or the connection is closed.
        case failed
    }

    /// Writes `bytes` without waiting for the peer to read: what its socket has no room for is
    /// kept, and sent before anything written later (``flushKept()``, or the next write). When
    /// bytes are kept already, this waits as ``write(_:)`` does: a connection keeps one message at
    /// most. Not on a socket: as ``write(_:)``.
    package func writeWithoutWaiting(_ bytes: UnsafeRawBufferPointer) -> Sent {
        guard isSocket else { return write(bytes) ? .all : .failed }
        return output.withLock { output in
            guard !output.closed else { return .failed }
            guard output.kept.isEmpty else { return writeAllAfterKept(bytes, &output) ? .all : .failed }
            guard let sent = sendWithoutWaiting(bytes) else { return .failed }
            if sent < bytes.count { output.kept = Array(bytes[sent...]) }
            return sent < bytes.count ? .kept : .all
        }
    }

    /// Sends what was kept, as far as the peer has room for it now.
    package func flushKept() -> Sent {
        output.withLock { output in
            guard !output.closed else { return .failed }
            guard !output.kept.isEmpty else { return .all }
            guard let sent = output.kept.withUnsafeBytes({ sendWithoutWaiting($0) }) else { return .failed }
            output.kept.removeFirst(sent)
            return output.kept.isEmpty ? .all : .kept
        }
    }

    /// Whether bytes written are kept, waiting for room in the peer's socket.
    package var keepsOutput: Bool { output.withLock { !$0.kept.isEmpty } }

    /// How much of `bytes` the socket took now; nil when the peer is gone or the send failed.
    private func sendWithoutWaiting(_ bytes: UnsafeRawBufferPointer) -> Int? {
        var sent = 0
        while sent < bytes.count {
            let written = Glibc.send(
                descriptor.rawValue, bytes.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
            if written < 0, errno == EINTR { continue }
            if written < 0, errno == EAGAIN || errno == EWOULDBLOCK { return sent }
            guard written > 0 else { return nil }
            sent += written
        }
        return sent
    }

    private func writeAll(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let written =
                isSocket
                ? Glibc.send(descriptor.rawValue, bytes.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL))
                : Glibc.write(descriptor.rawValue, bytes.baseAddress! + sent, bytes.count - sent)
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { return false }
            sent += written
        }
        return true
    }

    /// Writes `line` and a line feed; false when the peer is gone.
    @discardableResult
    package func writeLine(_ line: String) -> Bool {
        (Array(line.utf8) + [UInt8(ascii: "\n")]).withUnsafeBytes { write($0) }
    }

    private enum Wait { case ready, timedOut, interrupted }

    private func waitReadable(until deadline: ContinuousClock.Instant?, interrupt: FileDescriptor?) -> Wait {
        guard deadline != nil || interrupt != nil else { return .ready }
        while true {
            var timeout: Int32 = -1
            if let deadline {
                let left = ContinuousClock.now.duration(to: deadline)
                guard left > .zero else { return .timedOut }
                let (seconds, attoseconds) = left.components
                timeout = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
            }
            // On the stack, not an array made for every wait (a client waits once a call).
            var entries = (
                pollfd(fd: descriptor.rawValue, events: Int16(POLLIN), revents: 0),
                pollfd(fd: interrupt?.rawValue ?? -1, events: Int16(POLLIN), revents: 0)
            )
            let count: nfds_t = interrupt == nil ? 1 : 2
            let ready = withUnsafeMutablePointer(to: &entries) {
                $0.withMemoryRebound(to: pollfd.self, capacity: 2) { poll($0, count, timeout) }
            }
            if ready < 0, errno == EINTR { continue }
            // An error shows in the read that follows.
            if ready < 0 { return .ready }
            if interrupt != nil, entries.1.revents != 0 { return .interrupted }
            if ready > 0 { return .ready }
        }
    }
}
