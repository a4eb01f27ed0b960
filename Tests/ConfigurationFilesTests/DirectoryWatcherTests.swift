import ConfigurationFiles
import Dispatch
import Foundation
import Glibc
import Locking
import TestSupport
import Testing

/// A watcher holds one inotify instance while it watches, and gives it back.
@Suite("Directory watcher")
struct DirectoryWatcherTests {
    @Test("stop() returns once the inotify instance is closed; a second stop() does nothing")
    func stopCloses() throws {
        let directory = try TemporaryDirectory(prefix: "watcher")
        let file = try directory.write("a", to: "watched.yaml")
        let queue = DispatchQueue(label: "DirectoryWatcherTests")
        let watcher = try DirectoryWatcher(files: [file], queue: queue) { _ in }
        #expect(OpenDescriptors.inotifyInstances(watching: directory.path) == 1)
        watcher.stop()
        #expect(OpenDescriptors.inotifyInstances(watching: directory.path) == 0)
        watcher.stop()
    }

    /// Collects what a watcher reports, for a test to wait on.
    final class Reports: Sendable {
        private let seen = Lock<[[String]]>([])
        private let arrived = DispatchSemaphore(value: 0)

        func add(_ files: [String]) {
            seen.withLock { $0.append(files) }
            arrived.signal()
        }

        /// Waits for the next report (the watcher reports from its queue); nil when none came
        /// within a minute (a bound for a broken watcher, not a timing assertion).
        func next() -> [String]? {
            guard arrived.wait(timeout: .now() + 60) == .success else { return nil }
            return seen.withLock { $0.removeFirst() }
        }
    }

    /// A lost event used to be lost silently: a revoked rule kept allowing. When the kernel's queue
    /// overflows, every file is reported. The queue is made one event long for this watcher alone
    /// (the limit is read when an inotify instance is made) and held while events pile up.
    @Test(
        "an overflowed event queue reports every watched file", .enabled(if: geteuid() == 0, "sets an inotify limit"))
    func overflow() throws {
        let directory = try TemporaryDirectory(prefix: "watcher-overflow")
        let first = try directory.write("a", to: "first.yaml")
        let second = try directory.write("b", to: "second.yaml")
        let limitFile = "/proc/sys/fs/inotify/max_queued_events"
        let limit = try String(contentsOfFile: limitFile, encoding: .utf8)
        let queue = DispatchQueue(label: "DirectoryWatcherTests.overflow")
        let reports = Reports()
        let held = DispatchSemaphore(value: 0)
        queue.async { held.wait() }
        try "1\n".write(toFile: limitFile, atomically: false, encoding: .utf8)
        let made = Result { try DirectoryWatcher(files: [first, second], queue: queue) { reports.add($0) } }
        try limit.write(toFile: limitFile, atomically: false, encoding: .utf8)
        let watcher = try made.get()
        defer { watcher.stop() }
        // Three writes while the queue is held: one event fits, the rest overflow.
        for text in ["1", "2", "3"] { _ = try directory.write(text, to: "first.yaml") }
        held.signal()
        #expect(reports.next() == [first, second])
    }

    @Test("a watched directory moved away: its files are reported, so their reload finds them gone")
    func directoryMoved() throws {
        let parent = try TemporaryDirectory(prefix: "watcher-replaced")
        let directory = parent.path(of: "policy.d")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        let file = directory + "/rules.yaml"
        try "a".write(toFile: file, atomically: false, encoding: .utf8)
        let queue = DispatchQueue(label: "DirectoryWatcherTests.replaced")
        let reports = Reports()
        let watcher = try DirectoryWatcher(files: [file], queue: queue) { reports.add($0) }
        defer { watcher.stop() }
        #expect(rename(directory, parent.path(of: "policy.d.old")) == 0)
        #expect(reports.next() == [file])
        // Removed outright, likewise.
        let other = try TemporaryDirectory(prefix: "watcher-removed")
        let removedFile = try other.write("a", to: "rules.yaml")
        let removedReports = Reports()
        let removedWatcher = try DirectoryWatcher(files: [removedFile], queue: queue) { removedReports.add($0) }
        defer { removedWatcher.stop() }
        try FileManager.default.removeItem(atPath: other.path)
        var reported: Set<String> = []
        while !reported.contains(removedFile), let report = removedReports.next() { reported.formUnion(report) }
        #expect(reported.contains(removedFile))
    }

    @Test("a file whose directory cannot be watched is an error that names the directory")
    func unwatchable() throws {
        let directory = try TemporaryDirectory(prefix: "watcher")
        let queue = DispatchQueue(label: "DirectoryWatcherTests")
        #expect {
            try DirectoryWatcher(files: [directory.path + "/missing/watched.yaml"], queue: queue) { _ in }
        } throws: { error in
            "\(error)".contains("cannot watch \(directory.path)/missing")
        }
    }
}
