import Capabilities
import Glibc
import Locking
import SystemPackage

/// A subject's process's /proc directory, held open for the subject's life: every file read
/// through it is that process's or fails. The kernel ties an open /proc/PID directory to the
/// process, not to the number: once the process is reaped, its files answer ESRCH, even after a
/// new process takes the pid. So the process is proven to be the subject's once, by its start
/// time read through the directory when it is opened, rather than by reading its start time
/// around every later reading. A kept directory keeps the process's `status` open too: the kernel
/// writes it afresh for every read from its start, and it fails as the directory's files do once
/// the process is reaped, so a decision reads it without opening it.
package final class ProcessDirectory: Sendable {
    /// Why the directory could not be opened.
    enum Failure: Error {
        /// The process has ended, or its pid is another process's.
        case ended
        /// Why it could not be opened or read.
        case unreadable(String)
    }

    /// The open directory (`O_DIRECTORY`), closed when the last copy of the subject goes.
    private let directory: FileDescriptor
    /// Whether it counts against the limit of kept directories (it is kept with the subject).
    private let counted: Bool
    /// The process's `status`, open while the directory is kept (nil: opened per reading).
    private let status: FileDescriptor?
    /// The program a reading last found the process running, started without privileges
    /// (``PinnedProcessReading``), while the directory is kept.
    private let knownProgram = Lock<KnownProgram?>(nil)

    /// A program found running without privileges it gained when started.
    struct KnownProgram {
        /// Its auxiliary vector: equal bytes read later are the same program.
        let vector: [UInt8]
        /// Whether the process's credentials were the ones pinned and fixed for as long as it
        /// runs the program (``ProcessFiles/Status/credentialsFixed``).
        let credentialsFixed: Bool
    }

    /// How many directories are kept open at once, and the most that may be: each holds two
    /// descriptors (itself and the process's `status`) for as long as its subject lives, so a
    /// service bounds them beside its connections (capctld sets it from its descriptor limit).
    /// Past it, a reading opens a directory for itself and closes it after: the same proof, paid
    /// per reading.
    private static let kept = Lock((open: 0, limit: 1_024))

    /// Sets how many directories may be kept open at once.
    package static func setKeptLimit(_ limit: Int) {
        kept.withLock { $0.limit = max(0, limit) }
    }

    private init(directory: FileDescriptor, counted: Bool) {
        self.directory = directory
        self.counted = counted
        let opened = counted ? openat(directory.rawValue, "status", O_RDONLY | O_CLOEXEC) : -1
        status = opened >= 0 ? FileDescriptor(rawValue: opened) : nil
    }

    deinit {
        try? status?.close()
        try? directory.close()
        if counted { Self.kept.withLock { $0.open -= 1 } }
    }

    /// The directory of `process`: the one kept with the subject, else opened and proven now
    /// (and kept, while fewer than the limit are).
    static func of(_ process: SubjectProcess) throws(Failure) -> ProcessDirectory {
        if let directory = process.handles.value(of: ProcessDirectory.self) { return directory }
        let directory = try open(process)
        return directory.counted ? process.handles.keep(directory) : directory
    }

    private static func open(_ process: SubjectProcess) throws(Failure) -> ProcessDirectory {
        let opened = Glibc.open("/proc/\(process.pid)", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard opened >= 0 else {
            let code = errno
            if code == ENOENT || code == ESRCH { throw .ended }
            throw .unreadable("cannot open /proc/\(process.pid): \(String(cString: strerror(code)))")
        }
        let counted = kept.withLock { kept in
            guard kept.open < kept.limit else { return false }
            kept.open += 1
            return true
        }
        let directory = ProcessDirectory(directory: FileDescriptor(rawValue: opened), counted: counted)
        // The pid may have been reused before the directory was opened: the start time tells.
        guard let bytes = try? directory.bytes(of: "stat"), let stat = ProcessFiles.stat(parsing: bytes),
            stat.startTime == process.startTime
        else { throw .ended }
        return directory
    }

    /// The user namespace the process runs in, beside this process's.
    func userNamespace(of pid: Int32) -> ProcessFiles.UserNamespace {
        ProcessFiles.userNamespace(in: directory.rawValue, of: pid)
    }

    /// The bytes of the process's file `name` (`status`, `auxv`, ...).
    func bytes(of name: String) throws(FileContents.ReadError) -> [UInt8] {
        try FileContents.bytes(of: name, in: directory.rawValue)
    }

    /// The program a reading last found the process running without privileges it gained when
    /// started, if one did while the directory is kept.
    var unprivilegedProgram: KnownProgram? { knownProgram.withLock { $0 } }

    /// Records the program a reading found running without privileges it gained when started
    /// (nothing is kept past the reading of a directory opened for it alone).
    func found(unprivilegedProgram program: KnownProgram) {
        guard counted else { return }
        knownProgram.withLock { $0 = program }
    }

    /// The bytes of the process's `status`, as it stands now.
    func statusBytes() throws(FileContents.ReadError) -> [UInt8] {
        guard let status else { return try bytes(of: "status") }
        return try FileContents.bytesFromStart(of: status, name: "status")
    }
}
