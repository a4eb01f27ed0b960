import Glibc

/// How long any one wait of a test lasts at most: a line from a child, a record from a log, a
/// child's end. Past it the wait gives up (nil, false, a killed child) and the test fails on what
/// it did not get, instead of hanging until CI's limit. Far beyond what any wait here takes.
public enum TestDeadline {
    /// The longest one wait lasts.
    public static let wait = Duration.seconds(60)

    /// read(2) of `descriptor` into `buffer` once it has something, retried when a signal
    /// interrupts: the count, 0 at the end of the file, or -1 on an error or (`ETIMEDOUT`) once
    /// `deadline` has passed.
    public static func read(
        _ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer, by deadline: ContinuousClock.Instant
    ) -> Int {
        while true {
            let remaining = deadline - .now
            guard remaining > .zero else {
                errno = ETIMEDOUT
                return -1
            }
            let (seconds, attoseconds) = remaining.components
            let milliseconds = min(seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1, Int64(Int32.max))
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, Int32(milliseconds))
            if ready < 0, errno != EINTR { return -1 }
            guard ready > 0 else { continue }
            let count = Glibc.read(descriptor, buffer.baseAddress, buffer.count)
            if count < 0, errno == EINTR { continue }
            return count
        }
    }
}
