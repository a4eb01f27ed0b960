import CLinuxSupport
import Dispatch
import Foundation
import Glibc

/// A long-running child (a daemon a test starts): spawned directly, its standard output and
/// error read line by line from one pipe, and killed and reaped by the test itself. Foundation's
/// Process was seen never to notice the end of a daemon that had changed its user.
public final class DaemonProcess: @unchecked Sendable {
    // The buffer is only touched by one nextLine() at a time; pid and descriptor never change.
    public let pid: Int32
    private let output: Int32
    private var buffer: [UInt8] = []
    private var reaped = false

    /// Starts `command` (an absolute executable path and its arguments) with `environment`.
    ///
    /// With `listening`, that socket is the child's descriptor 3, as systemd's socket activation
    /// passes it: the child is reachable the moment it starts, so no test waits for it to bind.
    /// The child must learn LISTEN_PID itself (`sh -c 'LISTEN_PID=$$ exec ...'`).
    public init(_ command: [String], environment: [String: String], listening: Int32? = nil) throws {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw DaemonError("cannot create a pipe") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, ends[1], 1)
        posix_spawn_file_actions_adddup2(&actions, ends[1], 2)
        posix_spawn_file_actions_addclose(&actions, ends[0])
        posix_spawn_file_actions_addclose(&actions, ends[1])
        // Duplicated above 3 first: a dup2 onto itself would leave close-on-exec set.
        let passed = listening.map { fcntl($0, F_DUPFD_CLOEXEC, 10) }
        defer { if let passed, passed >= 0 { close(passed) } }
        if let passed {
            guard passed >= 0 else { throw DaemonError("cannot pass the listening socket") }
            posix_spawn_file_actions_adddup2(&actions, passed, 3)
        }
        // Only 0, 1 and 2 (and the socket): a daemon that lives on must not hold the test
        // process's other descriptors.
        clinux_spawn_close_from(&actions, listening == nil ? 3 : 4)
        let arguments: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) } + [nil]
        let variables: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in arguments + variables { free(pointer) }
        }
        // A clean signal mask and default dispositions: the test process's threads block signals
        // the child must not inherit (a tmux server's panes with SIGHUP blocked outlive kill-server).
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var signals = sigset_t()
        sigemptyset(&signals)
        posix_spawnattr_setsigmask(&attributes, &signals)
        sigfillset(&signals)
        posix_spawnattr_setsigdefault(&attributes, &signals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: Int32 = 0
        var status = posix_spawn(&pid, command[0], &actions, &attributes, arguments, variables)
        // A copy another test thread just wrote (builtProductForAnyUser) is briefly open for writing
        // in the children other threads are spawning, until they exec: ETXTBSY for a moment only.
        for _ in 0..<400 where status == ETXTBSY {
            var pause = timespec(tv_sec: 0, tv_nsec: 5_000_000)
            nanosleep(&pause, nil)
            status = posix_spawn(&pid, command[0], &actions, &attributes, arguments, variables)
        }
        close(ends[1])
        guard status == 0 else {
            close(ends[0])
            throw DaemonError("cannot start \(command[0]): \(String(cString: strerror(status)))")
        }
        self.pid = pid
        output = ends[0]
    }

    /// The next line of output, or nil once the child closed it. Blocks a dispatch thread, not the caller's.
    public func nextLine() async -> String? {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: self.readLineBlocking()) }
        }
    }

    /// The next line of output, or nil once the child closed it (or wrote no line within
    /// ``TestDeadline/wait``), blocking the calling thread.
    public func readLineBlocking() -> String? {
        let deadline = ContinuousClock.now + TestDeadline.wait
        while true {
            if let newline = buffer.firstIndex(of: 10) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = chunk.withUnsafeMutableBytes { TestDeadline.read(output, into: $0, by: deadline) }
            if count <= 0 { return nil }
            buffer.append(contentsOf: chunk[..<count])
        }
    }

    /// Reads output until it contains `text` (a prompt written without a line break); false once
    /// the child closed its output first, or after ``TestDeadline/wait``. What was read stays for
    /// ``readLineBlocking()``.
    public func waitForOutput(containing text: String) async -> Bool {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                let deadline = ContinuousClock.now + TestDeadline.wait
                let wanted = Array(text.utf8)
                while true {
                    if self.buffer.count >= wanted.count,
                        (0...(self.buffer.count - wanted.count)).contains(where: {
                            self.buffer[$0..<($0 + wanted.count)].elementsEqual(wanted)
                        })
                    {
                        return continuation.resume(returning: true)
                    }
                    var chunk = [UInt8](repeating: 0, count: 4096)
                    let count = chunk.withUnsafeMutableBytes { TestDeadline.read(self.output, into: $0, by: deadline) }
                    if count <= 0 { return continuation.resume(returning: false) }
                    self.buffer.append(contentsOf: chunk[..<count])
                }
            }
        }
    }

    /// `PID,START-TIME,UID` of a process, as `capctl check --for-process` and `pkcheck --process`
    /// take it: field 22 of /proc/PID/stat and the effective uid of /proc/PID/status.
    public static func processReference(_ pid: Int32) -> String? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")"),
            let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let uidLine = status.split(separator: "\n").first(where: { $0.hasPrefix("Uid:") })
        else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        let uids = uidLine.split(whereSeparator: { $0 == "\t" || $0 == " " })
        guard fields.count > 19, uids.count > 2 else { return nil }
        return "\(pid),\(fields[19]),\(uids[2])"
    }

    /// Waits for the child to exit on its own and reaps it: its exit status (128 + the signal when
    /// a signal ended it), or -1 when it was reaped already. A child still running after
    /// ``TestDeadline/wait`` is killed (its status says SIGKILL), so no test waits for ever.
    public func waitUntilExit() -> Int32 {
        guard !reaped else { return -1 }
        reaped = true
        let pidfd = clinux_pidfd_open(pid)
        if pidfd >= 0 {
            var entry = pollfd(fd: pidfd, events: Int16(POLLIN), revents: 0)
            var ready: Int32
            repeat {
                ready = poll(&entry, 1, Int32(TestDeadline.wait.components.seconds * 1000))
            } while ready < 0 && errno == EINTR
            close(pidfd)
            if ready == 0 { kill(pid, SIGKILL) }
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        close(output)
        let signal = status & 0x7F
        return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
    }

    /// Kills the child with SIGKILL and reaps it.
    public func stop() {
        guard !reaped else { return }
        reaped = true
        // A child that leads a session of its own (setsid) is stopped with everything it started.
        if getsid(pid) == pid { kill(-pid, SIGKILL) }
        kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        close(output)
    }

    deinit { stop() }

    /// Stops a child that holds a PID namespace (`unshare --pid --fork`): kills the namespace's first
    /// process and returns once it has exited, which the kernel allows only after every other
    /// process of the namespace is gone; then stops the child itself.
    public func stopNamespace() {
        if !reaped, let holder = Self.children(of: pid).first {
            kill(holder, SIGKILL)
            while let state = Self.state(of: holder), state != "Z", state != "X" { sched_yield() }
        }
        stop()
    }

    /// The children of `pid`, whichever of its threads started them (Linux's
    /// /proc/PID/task/TID/children lists those of one thread).
    public static func children(of pid: Int32) -> [Int32] {
        let threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return threads.flatMap { thread -> [Int32] in
            guard let text = try? String(contentsOfFile: "/proc/\(pid)/task/\(thread)/children", encoding: .utf8)
            else { return [] }
            return text.split(separator: " ").compactMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        }
    }

    /// The state letter of `pid` (R, S, Z, ...), or nil when it is gone.
    static func state(of pid: Int32) -> Character? { stat(of: pid)?.state }

    /// The command name of `pid` while it runs: nil once it is gone or a zombie (it has stopped serving).
    public static func command(of pid: Int32) -> String? {
        guard let (command, state) = stat(of: pid), state != "Z", state != "X" else { return nil }
        return command
    }

    /// The command name and state letter from /proc/PID/stat (the name may hold spaces and parentheses).
    private static func stat(of pid: Int32) -> (command: String, state: Character)? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let open = text.firstIndex(of: "("), let close = text.lastIndex(of: ")"),
            let state = text[text.index(close, offsetBy: 2)...].first
        else { return nil }
        return (String(text[text.index(after: open)..<close]), state)
    }

    public struct DaemonError: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }
}

extension DaemonProcess {
    /// Starts dbus-daemon on `configuration` (a file naming its `<listen>` socket) and returns it
    /// once it listens: its first line is its address, or why it could not start.
    public static func dbusDaemon(configuration: String) async throws -> DaemonProcess {
        let bus = try DaemonProcess(
            ["/usr/bin/dbus-daemon", "--config-file=" + configuration, "--nofork", "--print-address"],
            environment: ProcessInfo.processInfo.environment)
        guard let line = await bus.nextLine(), line.hasPrefix("unix:") else {
            bus.stop()
            throw DaemonError("dbus-daemon did not start")
        }
        return bus
    }
}
