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
            let descriptor = try FileDescriptor.open(path, .readOnly, options: .closeOnExec)
            return try descriptor.closeAfter {
                var bytes: [UInt8] = []
                var chunk = [UInt8](repeating: 0, count: 64 * 1024)
                while true {
                    let count = try chunk.withUnsafeMutableBytes { try descriptor.read(into: $0) }
                    if count == 0 { return bytes }
                    bytes.append(contentsOf: chunk[..<count])
                }
            }
        } catch {
            throw ReadError(path: path, code: (error as? Errno)?.rawValue ?? EIO)
        }
    }
}
