import Foundation
import Glibc

/// This process's open descriptors, read from /proc/self: for tests that a resource is given
/// back. Counted by what they refer to, so tests running in parallel do not disturb each other.
public enum OpenDescriptors {
    /// Descriptors open on `path` (a file or a directory) now.
    public static func count(referringTo path: String) -> Int {
        descriptors().filter { target(of: $0) == path }.count
    }

    /// inotify instances with a watch on `path` (a directory or file, by its inode).
    public static func inotifyInstances(watching path: String) -> Int {
        var info = stat()
        guard stat(path, &info) == 0 else { return 0 }
        let inode = "ino:" + String(info.st_ino, radix: 16)
        return descriptors().filter { descriptor in
            guard target(of: descriptor) == "anon_inode:inotify",
                let text = try? String(contentsOfFile: "/proc/self/fdinfo/\(descriptor)", encoding: .utf8)
            else { return false }
            return text.split(separator: "\n").contains { line in
                line.hasPrefix("inotify ") && line.split(separator: " ").contains { $0 == inode }
            }
        }.count
    }

    /// Descriptors open on a Unix socket whose address is `path`: a listening socket and the
    /// connections it accepted (which take the listener's address). Asked of each descriptor with
    /// getsockname, not read from /proc/net/unix, whose listing can skip entries while other tests
    /// open and close sockets.
    public static func count(socketsAt path: String) -> Int {
        descriptors().filter { descriptor in
            guard target(of: descriptor)?.hasPrefix("socket:[") == true else { return false }
            var address = sockaddr_un()
            var length = socklen_t(MemoryLayout<sockaddr_un>.size)
            let named = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
            }
            guard named == 0, address.sun_family == sa_family_t(AF_UNIX) else { return false }
            let name = withUnsafeBytes(of: address.sun_path) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            return name == path
        }.count
    }

    private static func descriptors() -> [Int32] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).compactMap { Int32($0) }
    }

    private static func target(of descriptor: Int32) -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/fd/\(descriptor)", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
