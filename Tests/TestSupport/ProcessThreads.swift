import Foundation

/// This process's threads, read from /proc/self/task: for tests that threads end when their
/// owner is done. Counted by name, so tests running in parallel do not disturb each other.
public enum ProcessThreads {
    /// Threads whose name (`comm`, at most 15 bytes) is `name` now.
    public static func count(named name: String) -> Int { tasks(named: name).count }

    /// The nice values of process `pid`'s threads named `name` (field 19 of each task's `stat`),
    /// one per thread; `pid` nil is this process.
    public static func niceValues(named name: String, of pid: Int32? = nil) -> [Int] {
        tasks(named: name, of: pid).compactMap { task in
            guard let stat = try? String(contentsOfFile: task + "/stat", encoding: .utf8),
                let fields = stat.split(separator: ")").last?.split(separator: " "), fields.count > 17
            else { return nil }
            return Int(fields[16])
        }
    }

    /// The /proc directories of process `pid`'s threads (nil: this process's) named `name` now.
    private static func tasks(named name: String, of pid: Int32? = nil) -> [String] {
        let directory = "/proc/\(pid.map(String.init) ?? "self")/task"
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return tasks.map { directory + "/" + $0 }.filter { task in
            let comm = try? String(contentsOfFile: task + "/comm", encoding: .utf8)
            return comm?.trimmingCharacters(in: .newlines) == name
        }
    }

    /// Waits until no thread is named `name`, and returns true; false if some still is after
    /// `limit`. A thread ends a moment after it finishes its last work, with nothing to wait on,
    /// so this looks again (every millisecond) rather than assuming a time.
    public static func waitUntilNone(named name: String, limit: Duration = .seconds(30)) async -> Bool {
        let deadline = ContinuousClock.now + limit
        while count(named: name) > 0 {
            guard ContinuousClock.now < deadline else { return false }
            // A detached thread's exit has nothing to wait on: this polls for the observed state,
            // and the outcome never depends on how long the pause is.
            try? await Task.sleep(for: .milliseconds(1))  // allowed: polling a thread's exit, see above
        }
        return true
    }
}
