import ConfigurationFiles
import Dispatch
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
