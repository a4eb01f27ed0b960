import CLinuxSupport
import Glibc
import Plumbing
import SystemPackage

/// The one way this package reads a file that a gate depends on (policy files and drop-ins,
/// flag files, PAM service files), modelled on sshd's StrictModes and sudo's checks of sudoers.
///
/// A file is trusted when nobody but root and this process's user can change what it says:
/// - every directory from `/` down to it, along every symbolic link followed, is owned by root
///   or the user and writable by nobody else. A sticky directory such as /tmp is accepted on
///   the way when the entry below it is owned by root or the user, since nobody else can
///   rename that entry; the directory that holds the file never may be writable by others.
/// - the file itself, judged on the open descriptor it is then read from (no check-then-open
///   race), is a regular file owned by root or the user, writable by no group and no one else,
///   with no POSIX ACL entry granting anyone else write, and at most ``sizeLimit`` bytes.
/// Anything else (a dangling link, a FIFO, a device, a directory) is refused with a reason,
/// never skipped. The refusal names the path; it never quotes the content.
package enum TrustedFile {
    /// The largest file read: far above any real policy or flag file.
    package static let sizeLimit = 4 * 1024 * 1024

    /// The most symbolic links followed in one path, as the kernel's limit.
    static let symbolicLinkLimit = 40

    /// Why a path is not trusted.
    package struct Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        /// The path asked for.
        package let path: String
        /// Why it is refused.
        package let reason: String
        /// Whether nothing exists at the path (and no link on the way dangles): callers that
        /// treat a missing optional file as absent check this.
        package let isMissing: Bool

        init(_ path: String, _ reason: String, isMissing: Bool = false) {
            self.path = path
            self.reason = reason
            self.isMissing = isMissing
        }

        package var description: String { "\(path): \(reason)" }
    }

    /// The bytes of the regular file at `path`, after every check above.
    package static func bytes(of path: String) throws(Refusal) -> [UInt8] {
        let resolved = try resolve(path, expecting: .regularFile)
        let descriptor = try open(resolved, asked: path, options: [.nonBlocking, .noControllingTerminal])
        defer { try? descriptor.close() }
        let info = try judge(descriptor: descriptor, path: path, resolved: resolved, expecting: .regularFile)
        guard info.st_size <= sizeLimit else {
            throw Refusal(path, "refusing a file of \(info.st_size) bytes: the limit is \(sizeLimit) bytes")
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(info.st_size))
        // Sized to the file (a policy is a few hundred bytes): a 64 KiB buffer zeroed for it was
        // sixteen pages a process's start faulted in. A file that grows is read on, chunk by chunk.
        var chunk = [UInt8](repeating: 0, count: Int(min(max(info.st_size + 1, 4096), 64 * 1024)))
        while true {
            let count: Int
            do {
                count = try chunk.withUnsafeMutableBytes { try descriptor.read(into: $0) }
            } catch {
                throw Refusal(path, "cannot read: \(error)")
            }
            if count == 0 { return bytes }
            bytes.append(contentsOf: chunk[..<count])
            guard bytes.count <= sizeLimit else {
                throw Refusal(path, "refusing a file that grew past the limit of \(sizeLimit) bytes while being read")
            }
        }
    }

    /// Checks the regular file at `path` without reading it (a PAM service file, which libpam reads).
    package static func check(file path: String) throws(Refusal) {
        let resolved = try resolve(path, expecting: .regularFile)
        let descriptor = try open(resolved, asked: path, options: [.nonBlocking, .noControllingTerminal])
        defer { try? descriptor.close() }
        _ = try judge(descriptor: descriptor, path: path, resolved: resolved, expecting: .regularFile)
    }

    /// The names in the directory at `path` (without `.` and `..`, unsorted), after the same
    /// checks: a directory whose listing decides what is read must be writable by nobody else,
    /// sticky or not, or anyone could add an entry.
    package static func entries(of path: String) throws(Refusal) -> [String] {
        let resolved = try resolve(path, expecting: .directory)
        let descriptor = try open(resolved, asked: path, options: .directory)
        // The descriptor is closed here until the listing owns it, and by closedir after.
        let handle: OpaquePointer
        do throws(Refusal) {
            _ = try judge(descriptor: descriptor, path: path, resolved: resolved, expecting: .directory)
            guard let listing = fdopendir(descriptor.rawValue) else {
                throw Refusal(path, "cannot list: \(Errno(rawValue: errno))")
            }
            handle = listing
        } catch {
            try? descriptor.close()
            throw error
        }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != ".", name != ".." { names.append(name) }
        }
        return names
    }

    /// Opens the resolved object to judge and read it, never following a link at the last step;
    /// the caller closes it.
    private static func open(
        _ resolved: Resolved, asked path: String, options: FileDescriptor.OpenOptions
    ) throws(Refusal) -> FileDescriptor {
        do {
            return try FileDescriptor.open(resolved.path, .readOnly, options: options.union([.closeOnExec, .noFollow]))
        } catch {
            throw Refusal(path, "cannot open: \(error)")
        }
    }

    /// Whether anything (a file, a link, even a dangling one) is at `path`.
    package static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    // MARK: Checks

    enum Expected {
        case regularFile
        case directory

        var name: String { self == .regularFile ? "regular file" : "directory" }
    }

    struct Resolved {
        /// The path with every link resolved: each component a real directory, the last not a link.
        var path: String
        var info: stat
    }

    /// Walks `path` one component at a time, following links as the kernel would, and checks
    /// every directory passed through.
    static func resolve(_ path: String, expecting expected: Expected) throws(Refusal) -> Resolved {
        guard !path.isEmpty, !path.utf8.contains(0) else { throw Refusal(path, "not a usable path") }
        var pending: [Substring] = []
        if !path.hasPrefix("/") {
            guard let cwd = currentDirectory() else { throw Refusal(path, "cannot tell the current directory") }
            pending = components(of: cwd)
        }
        pending += components(of: path)
        pending.reverse()  // a stack: the next component is last

        var current: [Substring] = []
        // `current` joined, kept with it: joining every component again at each step was a
        // tenth of resolving a path.
        var holder = "/"
        var currentInfo = try directoryInfo("/", for: path)
        var viaLink = false
        var linksFollowed = 0
        while let component = pending.popLast() {
            if component == "." { continue }
            if component == ".." {
                if !current.isEmpty { current.removeLast() }
                holder = joined(current)
                currentInfo = try directoryInfo(holder, for: path)
                continue
            }
            let name = String(component)
            let candidate = holder == "/" ? "/" + name : holder + "/" + name
            var info = stat()
            guard lstat(candidate, &info) == 0 else {
                let code = errno
                if code == ENOENT, viaLink {
                    throw Refusal(path, "a symbolic link on the way points to \(candidate), which does not exist")
                }
                // The path is named once by whoever reports the refusal; a component on the way only
                // when it is not the path itself.
                let what = candidate == path ? errorText(code) : "\(errorText(code)) (\(candidate))"
                throw Refusal(path, what, isMissing: code == ENOENT)
            }
            let isLast = pending.isEmpty
            if let problem = writableByOthers(currentInfo, path: holder) {
                // An entry in a sticky directory can only be renamed by its owner (or root); but
                // anyone could add a file beside it, so a file's own directory is never accepted.
                let sticky = currentInfo.st_mode & S_ISVTX != 0
                let holdsFile = isLast && expected == .regularFile
                if holdsFile {
                    throw Refusal(path, "the directory holding \(candidate), \(holder), \(problem)")
                }
                if !sticky { throw Refusal(path, "a directory on the way, \(holder), \(problem)") }
                if !isTrustedOwner(info.st_uid) {
                    throw Refusal(
                        path,
                        "a directory on the way, \(holder), \(problem), and the entry in it, \(candidate), is owned by uid \(info.st_uid), not by root or by uid \(geteuid())"
                    )
                }
            }
            if fileType(info) == S_IFLNK {
                linksFollowed += 1
                guard linksFollowed <= symbolicLinkLimit else {
                    throw Refusal(path, "more than \(symbolicLinkLimit) symbolic links on the way")
                }
                guard let target = readLink(candidate) else { throw Refusal(path, "cannot read the link \(candidate)") }
                if target.hasPrefix("/") {
                    current = []
                    holder = "/"
                    currentInfo = try directoryInfo("/", for: path)
                }
                pending += components(of: target).reversed()
                viaLink = true
                continue
            }
            if isLast {
                guard fileType(info) == (expected == .regularFile ? S_IFREG : S_IFDIR) else {
                    throw Refusal(path, "refusing \(describe(info)): a \(expected.name) is expected here")
                }
                return Resolved(path: candidate, info: info)
            }
            guard fileType(info) == S_IFDIR else { throw Refusal(path, "\(candidate) is not a directory") }
            if let problem = ownership(info) { throw Refusal(path, "a directory on the way, \(candidate), \(problem)") }
            current.append(component)
            holder = candidate
            currentInfo = info
        }
        // The path named a directory that was walked entirely ("/", or ending in "..").
        guard expected == .directory else {
            throw Refusal(path, "refusing a directory: a regular file is expected here")
        }
        return Resolved(path: holder, info: currentInfo)
    }

    /// The checks made on the open descriptor: the same object that was walked to, of the
    /// right type, owned by root or the user, writable by nobody else.
    static func judge(descriptor: FileDescriptor, path: String, resolved: Resolved, expecting expected: Expected)
        throws(Refusal)
        -> stat
    {
        var info = stat()
        guard fstat(descriptor.rawValue, &info) == 0 else { throw Refusal(path, "cannot examine: \(errorText(errno))") }
        guard info.st_dev == resolved.info.st_dev, info.st_ino == resolved.info.st_ino else {
            throw Refusal(path, "it was replaced while being checked")
        }
        guard fileType(info) == (expected == .regularFile ? S_IFREG : S_IFDIR) else {
            throw Refusal(path, "refusing \(describe(info)): a \(expected.name) is expected here")
        }
        if let problem = ownership(info) { throw Refusal(path, problem) }
        if let problem = writers(info, acl: mayHaveWritingACL(info) ? aclEntries(descriptor: descriptor) : []) {
            throw Refusal(path, problem)
        }
        return info
    }

    private static func directoryInfo(_ path: String, for original: String) throws(Refusal) -> stat {
        var info = stat()
        guard stat(path, &info) == 0 else { throw Refusal(original, "\(path): \(errorText(errno))") }
        if let problem = ownership(info) { throw Refusal(original, "a directory on the way, \(path), \(problem)") }
        return info
    }

    private static func ownership(_ info: stat) -> String? {
        guard !isTrustedOwner(info.st_uid) else { return nil }
        return "is owned by uid \(info.st_uid), not by root or by uid \(geteuid())"
    }

    private static func isTrustedOwner(_ uid: uid_t) -> Bool { uid == 0 || uid == geteuid() }

    /// Why others than the owner could write a directory on the way, or nil.
    private static func writableByOthers(_ info: stat, path: String) -> String? {
        writers(info, acl: mayHaveWritingACL(info) ? aclEntries(path: path) : [])
    }

    /// Whether an access ACL could let anyone but the owner write. With named entries, the mode's
    /// group bits are the ACL's mask, which bounds every named user's and group's permissions
    /// (acl(5)); without, they are the owning group's. So no group write bit, no writer through
    /// the ACL: its attribute is read (a system call per path component) only to say who.
    private static func mayHaveWritingACL(_ info: stat) -> Bool { info.st_mode & S_IWGRP != 0 }

    /// Who else than the owner can write, from the mode and the access ACL, or nil.
    private static func writers(_ info: stat, acl: [ACLEntry]) -> String? {
        let mode = "mode \(octal(info.st_mode))"
        let mask = acl.first { $0.tag == ACLEntry.mask }?.permissions ?? 0o7
        for entry in acl where entry.permissions & mask & ACLEntry.write != 0 {
            switch entry.tag {
            case ACLEntry.namedUser where !isTrustedOwner(entry.id):
                return "has an ACL entry that lets uid \(entry.id) write it (run setfacl -x u:\(entry.id))"
            case ACLEntry.namedGroup:
                return "has an ACL entry that lets group \(entry.id) write it (run setfacl -x g:\(entry.id))"
            default:
                break
            }
        }
        if info.st_mode & S_IWOTH != 0 { return "can be written by anyone (\(mode); run chmod o-w)" }
        if info.st_mode & S_IWGRP != 0 { return "can be written by group \(info.st_gid) (\(mode); run chmod g-w)" }
        return nil
    }

    // MARK: POSIX ACLs

    /// One entry of the `system.posix_acl_access` attribute (Linux's binary layout).
    struct ACLEntry {
        static let namedUser: UInt16 = 0x02
        static let namedGroup: UInt16 = 0x08
        static let mask: UInt16 = 0x10
        static let write: UInt16 = 0x02

        var tag: UInt16
        var permissions: UInt16
        var id: UInt32
    }

    private static let aclAttribute = "system.posix_acl_access"

    private static func aclEntries(descriptor: FileDescriptor) -> [ACLEntry] {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let size = buffer.withUnsafeMutableBytes {
            fgetxattr(descriptor.rawValue, aclAttribute, $0.baseAddress, $0.count)
        }
        return size > 0 ? parseACL(buffer[..<size]) : []
    }

    private static func aclEntries(path: String) -> [ACLEntry] {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let size = buffer.withUnsafeMutableBytes { getxattr(path, aclAttribute, $0.baseAddress, $0.count) }
        return size > 0 ? parseACL(buffer[..<size]) : []
    }

    /// A 4-byte version header, then 8-byte entries: tag, permissions (16 bits each), id (32 bits), little-endian.
    static func parseACL(_ bytes: ArraySlice<UInt8>) -> [ACLEntry] {
        let bytes = Array(bytes)
        guard bytes.count >= 4 else { return [] }
        func uint16(_ at: Int) -> UInt16 { UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8 }
        func uint32(_ at: Int) -> UInt32 { UInt32(uint16(at)) | UInt32(uint16(at + 2)) << 16 }
        var entries: [ACLEntry] = []
        var offset = 4
        while offset + 8 <= bytes.count {
            entries.append(ACLEntry(tag: uint16(offset), permissions: uint16(offset + 2), id: uint32(offset + 4)))
            offset += 8
        }
        return entries
    }

    // MARK: Helpers

    private static func components(of path: String) -> [Substring] {
        path.split(separator: "/", omittingEmptySubsequences: true)
    }

    private static func joined(_ components: [Substring]) -> String {
        // Not `joined(separator:)`: every process's first path would pay its run-time lookups.
        "/" + components.map(String.init).joinedByAppending(separator: "/")
    }

    private static func currentDirectory() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func readLink(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func fileType(_ info: stat) -> mode_t { info.st_mode & S_IFMT }

    private static func describe(_ info: stat) -> String {
        switch fileType(info) {
        case S_IFDIR: "a directory"
        case S_IFIFO: "a FIFO"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFSOCK: "a socket"
        case S_IFLNK: "a symbolic link"
        default: "a regular file"
        }
    }

    private static func octal(_ mode: mode_t) -> String { "0" + String(mode & 0o7777, radix: 8) }

    private static func errorText(_ code: Int32) -> String { String(cString: strerror(code)) }
}
