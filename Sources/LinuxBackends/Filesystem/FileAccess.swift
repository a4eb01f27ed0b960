import CLinuxSupport
public import Capabilities
import ConfigurationFiles
import Glibc
import Plumbing

/// Access to a path for this process's effective user and groups: read, write, execute
/// (search, for a directory), or creating entries in a directory; optionally also that the
/// path is a file or a directory.
///
/// The kernel answers (`faccessat` with `AT_EACCESS`), so ACLs, capabilities such as
/// `CAP_DAC_OVERRIDE`, read-only mounts and LSMs are all taken into account. The answer is a
/// moment's: a permission can change between the check and the use (time of check, time of
/// use), so a gate on file access decides whether to try, and the work must still handle a
/// failing open.
///
/// Statuses: authorized when every requested access is granted; denied with the first refusal
/// (permission denied, read-only file system, not a directory, wrong type); unavailable when
/// the path does not exist. `grants` lists what is granted (`read`, `write`, `execute`, `create`).
///
/// For a subject (``forSubject(_:)``), the kernel judges the same calls with the subject's user
/// and groups, on a thread whose file-system credentials alone are the subject's (mode bits,
/// owners, POSIX ACLs and every directory on the path, as for that user; the subject's own
/// capabilities are not assumed). A few such threads are kept for these checks alone and take
/// each check's credentials afresh; more checks at once start more, which end after theirs. That needs `CAP_SETUID` and `CAP_SETGID`
/// (a root service); without them only subjects with this process's own credentials are answered.
///
/// ```swift
/// let spool = try FileAccess("/var/spool/myservice", access: [.read, .write], kind: .directory)
/// export.addCondition(AuthorizedFor(spool))
/// ```
public struct FileAccess: SubjectCapability {
    /// Kinds of access.
    ///
    /// ```swift
    /// let config = try FileAccess("/etc/myservice/config.yaml", access: .read, kind: .file)
    /// _ = config
    /// ```
    public struct Access: OptionSet, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        /// Read a file, list a directory.
        public static let read = Access(rawValue: 1)
        /// Write a file, change a directory's entries.
        public static let write = Access(rawValue: 2)
        /// Execute a file, enter (search) a directory.
        public static let execute = Access(rawValue: 4)
        /// Create entries in a directory: write and search on it.
        public static let create = Access(rawValue: 8)

        static let all: [(Access, String)] = [
            (.read, "read"), (.write, "write"), (.execute, "execute"), (.create, "create"),
        ]

        /// The grant names, such as `read` and `write`.
        public var names: [String] { Self.all.filter { contains($0.0) }.map(\.1) }

        public var description: String { names.isEmpty ? "existence" : names.joinedByAppending(separator: " and ") }
    }

    /// What the path must be.
    public enum Kind: String, Sendable, Hashable {
        /// Whatever the path names: a file, a directory or anything else.
        case any
        /// A regular file.
        case file
        /// A directory.
        case directory
    }

    /// The absolute path checked.
    public let path: String
    /// The access needed.
    public let access: Access
    /// What the path must be.
    public let kind: Kind
    private var subject: Subject?
    /// What an authorized status says was asked for and granted ("read and write granted").
    private let grantedSummary: String

    /// Access to an absolute `path`. A relative path is an error: what it names would depend on
    /// the working directory at the moment of the check.
    public init(_ path: String, access: Access, kind: Kind = .any) throws(CapabilityConfigurationError) {
        guard path.hasPrefix("/") else {
            throw CapabilityConfigurationError("file access needs an absolute path, got \"\(path)\"")
        }
        guard !path.utf8.contains(0) else { throw CapabilityConfigurationError("a path cannot contain a NUL byte") }
        if access.contains(.create), kind == .file {
            throw CapabilityConfigurationError("\"create\" is access to a directory, but \(path) must be a file")
        }
        self.path = path
        self.access = access
        self.kind = kind
        grantedSummary = access.isEmpty ? "exists" : access.description + " granted"
    }

    public var name: String { "file:\(path)" }

    /// The same access judged for `subject`'s user and groups.
    public func forSubject(_ subject: Subject) -> any CapabilityType {
        var asked = self
        asked.subject = subject
        return asked
    }

    public var requirement: GrantRequirement { GrantRequirement(grants: Set(access.names)) }

    /// Runs on a thread of its own: `stat` and `access` wait for the file system, which may be a
    /// network one (NFS, FUSE) that does not answer.
    public func status() async throws -> CapabilityStatus {
        let capability = self
        return try await BlockingWork.value { capability.currentStatus() }
    }

    /// The status at once where the calling thread may block (a service's own client thread
    /// deciding for its client): ``status()`` would run the same check on that thread.
    public func knownStatus() -> CapabilityStatus? {
        BlockingWork.runsOnCallingThread ? currentStatus() : nil
    }

    private func currentStatus() -> CapabilityStatus {
        guard let subject, !Self.isThisProcess(subject) else { return check() }
        final class Box {
            let body: () -> CapabilityStatus
            var status: CapabilityStatus?
            init(_ body: @escaping () -> CapabilityStatus) { self.body = body }
        }
        let box = Box(check)
        let groups = subject.supplementaryGroups
        let code = withExtendedLifetime(box) {
            clinux_run_with_file_credentials(
                subject.uid, subject.gid, groups, Int32(groups.count),
                { context in
                    let box = Unmanaged<Box>.fromOpaque(context!).takeUnretainedValue()
                    box.status = box.body()
                }, Unmanaged.passUnretained(box).toOpaque())
        }
        guard code == 0, var status = box.status else {
            return .unavailable(
                "cannot judge \(path) for \(subject): this process cannot take its credentials"
                    + " (\(String(cString: strerror(code))); a root service can)", cause: .error)
        }
        status.reason = "for \(subject): " + status.reason
        return status
    }

    /// What a directory, and anything else, grants when every access is granted.
    private static let everythingInDirectory: Set = ["read", "write", "execute", "create"]
    private static let everythingInFile: Set = ["read", "write", "execute"]

    /// Whether `subject` has exactly this process's file-system credentials.
    private static func isThisProcess(_ subject: Subject) -> Bool {
        // Asked in the order that ends soonest for another user: the uid, the group, then the
        // groups, read into room for the subject's (more than those is not the same list).
        guard subject.uid == geteuid(), subject.gid == getegid() else { return false }
        let expected = subject.supplementaryGroups
        var groups = [gid_t](repeating: 0, count: expected.count)
        let count = getgroups(Int32(groups.count), &groups)
        guard count == expected.count else { return false }
        // Both lists are the kernel's, in its order: equal arrays are the common case, sets the rest.
        return groups == expected || Set(groups) == Set(expected)
    }

    private func check() -> CapabilityStatus {
        var info = stat()
        guard stat(path, &info) == 0 else {
            let code = errno
            switch code {
            case ENOENT: return .unavailable("\(path) does not exist", cause: .resourceMissing)
            case ENOTDIR: return .unavailable("a component of \(path) is not a directory", cause: .resourceMissing)
            default: return .denied("cannot examine \(path): \(Self.describe(code))")
            }
        }
        let isDirectory = (info.st_mode & S_IFMT) == S_IFDIR
        let type = isDirectory ? "a directory" : ((info.st_mode & S_IFMT) == S_IFREG ? "a file" : "a special file")
        switch kind {
        case .file where isDirectory, .file where (info.st_mode & S_IFMT) != S_IFREG:
            return .denied("\(path) is \(type), not a file")
        case .directory where !isDirectory:
            return .denied("\(path) is \(type), not a directory")
        default:
            break
        }
        if access.contains(.create), !isDirectory {
            return .denied("\(path) is \(type); entries can only be created in a directory")
        }

        // Everything granted, as for root or an owner, is one question; a refusal asks each.
        if faccessat(AT_FDCWD, path, R_OK | W_OK | X_OK, AT_EACCESS) == 0 {
            return .authorized(
                "\(path) (\(type)): \(grantedSummary)",
                grants: isDirectory ? Self.everythingInDirectory : Self.everythingInFile)
        }
        var granted: Set<String> = []
        var refusal: String?
        var writeRefused = ""
        for (mode, name, flag) in [(Access.read, "read", R_OK), (.write, "write", W_OK), (.execute, "execute", X_OK)] {
            if faccessat(AT_FDCWD, path, flag, AT_EACCESS) == 0 {
                granted.insert(name)
                continue
            }
            let reason = Self.describe(errno)
            if mode == .write { writeRefused = reason }
            if access.contains(mode), refusal == nil { refusal = "\(name): \(reason)" }
        }
        if isDirectory, granted.contains("write"), granted.contains("execute") {
            granted.insert("create")
        } else if access.contains(.create), refusal == nil {
            refusal = "create: " + (granted.contains("write") ? "the directory cannot be searched" : writeRefused)
        }
        if let refusal { return CapabilityStatus(.denied, reason: "\(path) (\(type)): \(refusal)", grants: granted) }
        return .authorized("\(path) (\(type)): \(grantedSummary)", grants: granted)
    }

    private static func describe(_ code: Int32) -> String {
        switch code {
        case EACCES, EPERM: "permission denied"
        case EROFS: "read-only file system"
        case ENOTDIR: "a path component is not a directory"
        case ETXTBSY: "the file is being executed"
        default: String(cString: strerror(code)).lowercased()
        }
    }
}
