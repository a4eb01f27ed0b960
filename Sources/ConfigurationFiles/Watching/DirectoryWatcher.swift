package import Dispatch
import Glibc
import Locking
import Plumbing
import SystemPackage

/// Watches the directories holding some files with inotify and reports which of those files
/// may have changed: written and closed, renamed into place (how editors and `mv` save), removed,
/// or replaced by a symbolic link (how Kubernetes swaps mounted config files).
///
/// The parent directory is watched rather than the file, so a file replaced by rename is
/// still followed. Nothing is lost silently: when the kernel's event queue overflowed, every file
/// and directory is reported (read them all again); when a watched directory is removed, moved
/// or replaced, its files are reported (their reload finds them gone, or reads the new ones) and
/// the path is watched again where it can be.
// Sendable by hand: the dispatch source is only created, resumed and cancelled, all thread-safe.
package final class DirectoryWatcher: @unchecked Sendable {
    private let source: any DispatchSourceRead
    private let queue: DispatchQueue
    /// Signalled by the cancel handler, once the inotify descriptor is closed.
    private let closed = DispatchSemaphore(value: 0)
    private let stopped = Lock(false)

    /// Watches `files` (by their parent directories) and `directories` (any entry in them:
    /// drop-in directories, where new files matter). Reports the changed files, and a watched
    /// directory's own path when anything in it changed. Throws when inotify is unavailable or
    /// a file's directory cannot be watched; a missing drop-in directory is skipped.
    package init(
        files: [String], directories wholeDirectories: [String] = [], queue: DispatchQueue,
        onChange: @escaping @Sendable ([String]) -> Void
    ) throws(ConfigurationError) {
        let rawDescriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard rawDescriptor >= 0 else {
            throw ConfigurationError("cannot watch files: inotify_init1: \(Errno.current)", file: files.first ?? "")
        }
        // Closed here on a failure below, and by the source's cancel handler once it exists.
        let descriptor = FileDescriptor(rawValue: rawDescriptor)
        var directories: [Int32: (directory: String, files: [String])] = [:]
        let mask = UInt32(
            IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_CREATE | IN_DELETE_SELF | IN_MOVE_SELF)
        for file in files {
            let directory = Self.directory(of: file)
            let wd = inotify_add_watch(descriptor.rawValue, directory, mask)
            guard wd >= 0 else {
                let reason = Errno.current
                try? descriptor.close()
                throw ConfigurationError("cannot watch \(directory): \(reason)", file: file)
            }
            directories[wd, default: (directory, [])].files.append(file)
        }
        var everyEntry: [Int32: String] = [:]
        for directory in wholeDirectories {
            let wd = inotify_add_watch(descriptor.rawValue, directory, mask)
            if wd >= 0 { everyEntry[wd] = directory }
        }
        self.queue = queue
        let table = WatchTable(files: directories, wholeDirectories: everyEntry)
        source = DispatchSource.makeReadSource(fileDescriptor: descriptor.rawValue, queue: queue)
        source.setEventHandler {
            var changed: Set<String> = []
            var lost: [Int32] = []
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                // Non-blocking: EAGAIN (thrown) ends the batch, as does end of input.
                guard let count = try? buffer.withUnsafeMutableBytes({ try descriptor.read(into: $0) }), count > 0
                else { break }
                var offset = 0
                while offset + MemoryLayout<inotify_event>.size <= count {
                    let (wd, eventMask, length) = buffer.withUnsafeBytes { raw -> (Int32, UInt32, Int) in
                        let event = raw.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                        return (event.wd, event.mask, Int(event.len))
                    }
                    let nameStart = offset + MemoryLayout<inotify_event>.size
                    let name = String(
                        decoding: buffer[nameStart..<(nameStart + length)].prefix { $0 != 0 }, as: UTF8.self)
                    offset = nameStart + length
                    if eventMask & UInt32(IN_Q_OVERFLOW) != 0 {
                        // Events were dropped: any file may have changed.
                        changed.formUnion(table.everything)
                        continue
                    }
                    if eventMask & UInt32(IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF) != 0 {
                        // The directory itself went away (or moved): what it held may be gone or new.
                        changed.formUnion(table.paths(of: wd))
                        lost.append(wd)
                        continue
                    }
                    if let directory = table.wholeDirectories[wd] { changed.insert(directory) }
                    guard let entry = table.files[wd] else { continue }
                    if eventMask & UInt32(IN_CREATE) != 0, !Self.isSymbolicLink(entry.directory + "/" + name) {
                        continue
                    }
                    for file in entry.files where name.isEmpty || Self.baseName(file) == name || name.hasPrefix("..") {
                        changed.insert(file)
                    }
                }
            }
            for wd in Set(lost) { table.watchAgain(wd, descriptor: descriptor.rawValue, mask: mask) }
            if !changed.isEmpty { onChange(changed.sorted()) }
        }
        let closed = closed
        source.setCancelHandler {
            try? descriptor.close()
            closed.signal()
        }
        source.resume()
    }

    /// Stops watching, and returns once the inotify instance is closed: an owner that shuts down
    /// knows its descriptors are given back. Not from `queue`, where the closing happens.
    package func stop() {
        dispatchPrecondition(condition: .notOnQueue(queue))
        let first = stopped.withLock { stopped in
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        source.cancel()
        closed.wait()
    }

    deinit {
        // Without stop(), the instance is closed on `queue` soon after.
        source.cancel()
    }

    /// Which directory each watch descriptor stands for; touched on the watcher's queue only.
    private final class WatchTable: @unchecked Sendable {
        var files: [Int32: (directory: String, files: [String])]
        var wholeDirectories: [Int32: String]

        init(files: [Int32: (directory: String, files: [String])], wholeDirectories: [Int32: String]) {
            self.files = files
            self.wholeDirectories = wholeDirectories
        }

        var everything: Set<String> {
            Set(files.values.flatMap(\.files)).union(wholeDirectories.values)
        }

        func paths(of wd: Int32) -> [String] {
            (files[wd]?.files ?? []) + (wholeDirectories[wd].map { [$0] } ?? [])
        }

        /// The path of a lost watch, watched again (a directory moved away and another put in its
        /// place); while it does not exist, its files stay reported as gone by their reload.
        func watchAgain(_ wd: Int32, descriptor: Int32, mask: UInt32) {
            if let entry = files.removeValue(forKey: wd) {
                inotify_rm_watch(descriptor, wd)
                let again = inotify_add_watch(descriptor, entry.directory, mask)
                if again >= 0 { files[again, default: (entry.directory, [])].files += entry.files }
            }
            if let directory = wholeDirectories.removeValue(forKey: wd) {
                inotify_rm_watch(descriptor, wd)
                let again = inotify_add_watch(descriptor, directory, mask)
                if again >= 0 { wholeDirectories[again] = directory }
            }
        }
    }

    private static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    private static func baseName(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }

    private static func isSymbolicLink(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFLNK
    }
}
