import Foundation
import Glibc

/// Which cores a measurement's processes run on (taskset), for rows whose noise is otherwise where
/// the scheduler wakes the other side: a server and its load generator trading cores, or a client
/// and a daemon woken across cores.
enum CorePlacement {
    /// Whether processes can be placed: two cores or more, and taskset.
    static let isAvailable =
        sysconf(Int32(_SC_NPROCESSORS_ONLN)) >= 2
        && FileManager.default.isExecutableFile(atPath: "/usr/bin/taskset")

    /// Every core, in taskset's list syntax.
    static let allCores = "0-\(sysconf(Int32(_SC_NPROCESSORS_ONLN)) - 1)"

    /// Makes `process`, not started yet, run its executable under `taskset -c core`, when
    /// placement is available.
    static func start(_ process: Process, on core: Int) {
        guard isAvailable, let executable = process.executableURL else { return }
        process.arguments = ["-c", String(core), executable.path] + (process.arguments ?? [])
        process.executableURL = URL(fileURLWithPath: "/usr/bin/taskset")
    }

    /// Gives every core back to every thread of each process of `pids` and of this one: a thread
    /// started while the calling thread was pinned (a Dispatch worker it woke) inherited its one
    /// core, and an 8-client row run on such workers measured two cores as one, by chance.
    static func giveBackAllCores(_ pids: [Int32]) -> Bool {
        move(pids + [getpid()], andThisThreadTo: allCores)
    }

    /// Puts every thread of each running process of `pids`, and the calling thread, on `cores`
    /// (taskset's list: "0", "0-1"); false when taskset could not.
    static func move(_ pids: [Int32], andThisThreadTo cores: String) -> Bool {
        // This thread's id: /proc/thread-self names it ("PID/task/TID"); Glibc's gettid is not imported.
        guard let thread = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self"),
            let tid = thread.split(separator: "/").last.flatMap({ Int32($0) })
        else { return false }
        let targets = pids.map { ["-a", "-pc", cores, String($0)] } + [["-pc", cores, String(tid)]]
        return targets.allSatisfy { arguments in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/taskset")
            process.arguments = arguments
            process.standardOutput = FileHandle.nullDevice
            guard (try? process.run()) != nil else { return false }
            process.waitUntilExit()
            return process.terminationStatus == 0
        }
    }
}
