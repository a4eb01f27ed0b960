import Capabilities
import Glibc

/// A subject's process's /proc directory, held open for the subject's life: every file read
/// through it is that process's or fails. The kernel ties an open /proc/PID directory to the
/// process, not to the number: once the process is reaped, its files answer ESRCH, even after a
/// new process takes the pid. So the process is proven to be the subject's once, by its start
/// time read through the directory when it is opened, rather than by reading its start time
/// around every later reading.
final class ProcessDirectory: Sendable {
    /// Why the directory could not be opened.
    enum Failure: Error {
        /// The process has ended, or its pid is another process's.
        case ended
        /// Why it could not be opened or read.
        case unreadable(String)
    }

    /// The open directory (`O_DIRECTORY`), closed when the last copy of the subject goes.
    let descriptor: Int32

    private init(descriptor: Int32) { self.descriptor = descriptor }

    deinit { close(descriptor) }

    /// The directory of `process`, opened and proven on first use and kept with the subject.
    static func of(_ process: SubjectProcess) throws(Failure) -> ProcessDirectory {
        try process.handles.value(of: ProcessDirectory.self) { () throws(Failure) -> ProcessDirectory in
            try open(process)
        }
    }

    private static func open(_ process: SubjectProcess) throws(Failure) -> ProcessDirectory {
        let opened = Glibc.open("/proc/\(process.pid)", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard opened >= 0 else {
            let code = errno
            if code == ENOENT || code == ESRCH { throw .ended }
            throw .unreadable("cannot open /proc/\(process.pid): \(String(cString: strerror(code)))")
        }
        let directory = ProcessDirectory(descriptor: opened)
        // The pid may have been reused before the directory was opened: the start time tells.
        guard let bytes = try? directory.bytes(of: "stat"), let stat = ProcessFiles.stat(parsing: bytes),
            stat.startTime == process.startTime
        else { throw .ended }
        return directory
    }

    /// The bytes of the process's file `name` (`status`, `auxv`, ...).
    func bytes(of name: String) throws(FileContents.ReadError) -> [UInt8] {
        try FileContents.bytes(of: name, in: descriptor)
    }
}
