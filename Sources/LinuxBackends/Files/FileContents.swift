import Glibc
import SystemPackage

/// Reads whole files with plain system calls (works for /proc files, whose size is unknown in
/// advance). The one file reader of this package's modules.
package enum FileContents {
    /// The file could not be opened or read.
    package struct ReadError: Error, Sendable {
        /// The path.
        package let path: String
        /// The `errno` of the failing call.
        package let code: Int32

        /// `strerror`'s text, such as "No such file or directory".
        package var reason: String { String(cString: strerror(code)) }
    }

    /// The bytes of `path`.
    package static func bytes(of path: String) throws(ReadError) -> [UInt8] {
        do {
            return try readAll(try FileDescriptor.open(path, .readOnly, options: .closeOnExec))
        } catch {
            throw ReadError(path: path, code: (error as? Errno)?.rawValue ?? EIO)
        }
    }

    /// The bytes of a /proc file `name`, relative to the open /proc/PID directory `directory`
    /// (`openat`). Such a file gives everything it has to one read with room for it (the kernel
    /// makes its text whole, then copies), so a read that does not fill the buffer ends it: no
    /// second read to hear the end, on a path a service takes per decision.
    package static func bytes(of name: String, in directory: Int32) throws(ReadError) -> [UInt8] {
        let opened = openat(directory, name, O_RDONLY | O_CLOEXEC)
        guard opened >= 0 else { throw ReadError(path: name, code: errno) }
        do {
            return try readAll(FileDescriptor(rawValue: opened), endsAtShortRead: true)
        } catch {
            throw ReadError(path: name, code: (error as? Errno)?.rawValue ?? EIO)
        }
    }

    /// The whole of the /proc file open at `descriptor`, read afresh from its start (`pread` at
    /// offset 0: the kernel makes its text anew for each read from the start), the descriptor
    /// left open: a file a service reads per decision without opening it each time.
    static func bytesFromStart(of descriptor: FileDescriptor, name: String) throws(ReadError) -> [UInt8] {
        do {
            return try readChunks(endsAtShortRead: true) { chunk, offset in
                try descriptor.read(fromAbsoluteOffset: Int64(offset), into: chunk, retryOnInterrupt: true)
            }
        } catch {
            throw ReadError(path: name, code: (error as? Errno)?.rawValue ?? EIO)
        }
    }

    /// Everything `descriptor` reads (up to a read that returns nothing, or, with
    /// `endsAtShortRead`, one that does not fill the buffer), then closes it.
    private static func readAll(_ descriptor: FileDescriptor, endsAtShortRead: Bool = false) throws -> [UInt8] {
        try descriptor.closeAfter {
            try readChunks(endsAtShortRead: endsAtShortRead) { chunk, _ in
                try descriptor.read(into: chunk, retryOnInterrupt: true)
            }
        }
    }

    /// The bytes `read` gives, chunk after chunk (it is told how many it gave before), up to a
    /// chunk of nothing, or, with `endsAtShortRead`, one that does not fill the buffer.
    private static func readChunks(
        endsAtShortRead: Bool, _ read: (UnsafeMutableRawBufferPointer, Int) throws -> Int
    ) throws -> [UInt8] {
        // Most files read here are /proc's, of a few hundred bytes, read per decision: a buffer
        // on the stack, not a zeroed 64 KiB one on the heap.
        try withUnsafeTemporaryAllocation(byteCount: 8192, alignment: 1) { chunk in
            var bytes: [UInt8] = []
            while true {
                let count = try read(chunk, bytes.count)
                if count == 0 { return bytes }
                bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[..<count]))
                if endsAtShortRead, count < chunk.count { return bytes }
            }
        }
    }
}
