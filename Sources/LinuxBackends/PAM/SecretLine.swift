import Glibc

/// One line read for a password, a byte at a time so that nothing after its newline is
/// consumed (what follows on standard input belongs to someone else), into memory that is
/// zeroed before it is freed. It never becomes a Swift `String`.
package enum SecretLine {
    /// What reading a line gave.
    package enum Outcome {
        /// The line without its newline, NUL-terminated; the receiver zeroes and frees it.
        case line(UnsafeMutableBufferPointer<UInt8>)
        /// End of input before any byte.
        case endOfInput
        /// The line (read to its end, so none of it is left behind) is longer than the limit.
        case tooLong
        /// The line holds a NUL byte, which no password can contain.
        case containsNUL
        /// Reading failed.
        case failed(Int32)
    }

    /// Longer than any password PAM accepts (its own limit is 512 bytes).
    package static let limit = 4096

    package static func read(from fd: Int32) -> Outcome {
        let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: limit + 1)
        buffer.initialize(repeating: 0)
        defer {
            explicit_bzero(buffer.baseAddress!, buffer.count)
            buffer.deallocate()
        }
        var count = 0
        var overflowed = false
        var sawNUL = false
        var sawAnything = false
        var byte: UInt8 = 0
        defer { explicit_bzero(&byte, 1) }
        while true {
            let got = Glibc.read(fd, &byte, 1)
            if got < 0 {
                if errno == EINTR { continue }
                return .failed(errno)
            }
            if got == 0 {
                if !sawAnything { return .endOfInput }
                break
            }
            sawAnything = true
            if byte == UInt8(ascii: "\n") { break }
            if byte == 0 { sawNUL = true }
            // Past the limit the rest of the line is drained, not kept.
            if count < limit {
                buffer[count] = byte
                count += 1
            } else {
                overflowed = true
            }
        }
        if overflowed { return .tooLong }
        if sawNUL { return .containsNUL }
        let line = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: count + 1)
        _ = line.initialize(from: buffer[..<count])
        line[count] = 0
        return .line(line)
    }
}
