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
    /// connections it accepted (which the kernel lists under the same address, /proc/net/unix).
    public static func count(socketsAt path: String) -> Int {
        let table = (try? String(contentsOfFile: "/proc/net/unix", encoding: .utf8)) ?? ""
        // Num RefCount Protocol Flags Type St Inode Path
        let inodes = Set(
            table.split(separator: "\n").dropFirst().compactMap { line -> String? in
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                return fields.count >= 8 && fields[7] == path ? String(fields[6]) : nil
            })
        return descriptors().filter { descriptor in
            guard let target = target(of: descriptor), target.hasPrefix("socket:[") else { return false }
            return inodes.contains(String(target.dropFirst("socket:[".count).dropLast()))
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
