import Capabilities
import Glibc
import TestSupport
import Testing

@testable import LinuxBackends

/// A subject's /proc directory: opened once, proven by the start time, and never another
/// process's once the subject's has ended.
@Suite("a subject's process directory", .serialized)
struct ProcessDirectoryTests {
    /// A child that says so once its program runs (a subject read earlier, mid-exec, would be
    /// undecided: its vector is written after its credentials), then waits to be killed.
    private func child() async throws -> DaemonProcess {
        // The child waits to be killed; its sleep synchronizes nothing.
        let script = "import time; print('running', flush=True); time.sleep(600)"  // allowed: waits to be killed
        let child = try DaemonProcess(
            ["/usr/bin/python3", "-c", script],
            environment: [:])
        #expect(await child.nextLine() == "running")
        return child
    }

    @Test("opened once and kept by every copy of the subject; a start time that is not the process's opens nothing")
    func openedOnceAndProven() async throws {
        let child = try await child()
        defer { child.stop() }
        let subject = try Subject.process(child.pid)
        let process = try #require(subject.process)
        let first = try ProcessDirectory.of(process)
        let copy = subject
        #expect(try ProcessDirectory.of(try #require(copy.process)) === first, "the copy shares the kept directory")
        expectRunningThenOtherEnded(process)
    }

    /// `process` reads as holding; the same pid and credentials with another start time (another
    /// process, which has ended) open no directory and read as ended.
    private func expectRunningThenOtherEnded(
        _ process: SubjectProcess, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        if case .holding = PinnedProcessReading.read(process) {
        } else {
            Issue.record(
                "the running child reads as \(PinnedProcessReading.read(process))", sourceLocation: sourceLocation)
        }
        let other = SubjectProcess(
            user: process.user, pid: process.pid, startTime: process.startTime + 1, terminal: nil, loginSession: nil,
            keepScope: process.keepScope)
        #expect(throws: ProcessDirectory.Failure.self, sourceLocation: sourceLocation) {
            try ProcessDirectory.of(other)
        }
        if case .ended = PinnedProcessReading.read(other) {
        } else {
            Issue.record(
                "another start time reads as \(PinnedProcessReading.read(other))", sourceLocation: sourceLocation)
        }
    }

    @Test("past the limit of kept directories a reading opens its own, proves it the same way, and closes it")
    func pastTheLimit() async throws {
        let child = try await child()
        defer { child.stop() }
        // None kept while this runs (other tests' readings meanwhile open their own too).
        ProcessDirectory.setKeptLimit(0)
        defer { ProcessDirectory.setKeptLimit(1_024) }
        let process = try #require(try Subject.process(child.pid).process)
        let first = try ProcessDirectory.of(process)
        #expect(try ProcessDirectory.of(process) !== first, "not kept: each reading opens its own")
        expectRunningThenOtherEnded(process)
        // Below the limit again, the next reading's directory is kept.
        ProcessDirectory.setKeptLimit(1_024)
        let kept = try ProcessDirectory.of(process)
        #expect(try ProcessDirectory.of(process) === kept)
    }

    @Test("a process that has exited reads as ended through its kept directory: unreaped (a zombie), then reaped")
    func endedThroughTheKeptDirectory() async throws {
        let child = try await child()
        defer { child.stop() }
        let process = try #require(try Subject.process(child.pid).process)
        guard case .holding = PinnedProcessReading.read(process) else {
            Issue.record("the running child reads as \(PinnedProcessReading.read(process))")
            return
        }
        // Killed, and waited for until it has exited, but left unreaped: a zombie.
        kill(child.pid, SIGKILL)
        var information = siginfo_t()
        #expect(waitid(P_PID, id_t(child.pid), &information, WEXITED | WNOWAIT) == 0)
        guard case .ended = PinnedProcessReading.read(process) else {
            Issue.record("a zombie reads as \(PinnedProcessReading.read(process))")
            return
        }
        child.stop()
        guard case .ended = PinnedProcessReading.read(process) else {
            Issue.record("a reaped process reads as \(PinnedProcessReading.read(process))")
            return
        }
    }

    @Test(
        "a program found unprivileged is kept; a plain exec after it is read in full, and holds",
        arguments: [[], ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]])
    func programKeptAcrossExec(credentials: [String]) async throws {
        // Starts the same interpreter again when told (SIGUSR1), and says so once it runs.
        let script = """
            import os, signal, sys
            again = "import signal; print('again', flush=True)\\nwhile True: signal.pause()"
            signal.signal(signal.SIGUSR1, lambda *_: os.execv(sys.executable, [sys.executable, "-c", again]))
            print('running', flush=True)
            while True: signal.pause()
            """
        let child = try DaemonProcess(credentials + ["/usr/bin/python3", "-c", script], environment: [:])
        defer { child.stop() }
        #expect(await child.nextLine() == "running")
        let process = try #require(try Subject.process(child.pid).process)
        guard case .holding = PinnedProcessReading.read(process) else {
            Issue.record("the child reads as \(PinnedProcessReading.read(process))")
            return
        }
        let directory = try ProcessDirectory.of(process)
        let first = try #require(directory.unprivilegedProgram)
        #expect(first.vector == (try directory.bytes(of: "auxv")), "the program kept is the one running")
        // Root may set its ids at will; uid 65534 without capabilities cannot.
        #expect(first.credentialsFixed == !credentials.isEmpty)
        kill(child.pid, SIGUSR1)
        #expect(await child.nextLine() == "again")
        guard case .holding = PinnedProcessReading.read(process) else {
            Issue.record("after the exec the child reads as \(PinnedProcessReading.read(process))")
            return
        }
        let second = try #require(directory.unprivilegedProgram)
        #expect(second.vector != first.vector, "the program kept is the one started by the exec")
        #expect(second.vector == (try directory.bytes(of: "auxv")))
    }

    @Test("with its credentials fixed, a process's effective set is read as it stands at each reading")
    func fixedCredentialsReadLive() async throws {
        // Holds CAP_NET_BIND_SERVICE (ambient, as systemd gives it) as uid 65534, and lowers it
        // from its effective set when told (SIGUSR1).
        let script = """
            import ctypes, os, signal
            libc = ctypes.CDLL(None, use_errno=True)
            class Header(ctypes.Structure): _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]
            class Data(ctypes.Structure): _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]
            def lower(*_):
                header, data = Header(0x20080522, 0), (Data * 2)()
                assert libc.capget(ctypes.byref(header), data) == 0
                data[0].effective &= ~(1 << 10)
                assert libc.capset(ctypes.byref(header), data) == 0
                os.write(1, b'lowered\\n')  # not print: the signal may come while 'running' is printed
            signal.signal(signal.SIGUSR1, lower)
            print('running', flush=True)
            while True: signal.pause()
            """
        let child = try DaemonProcess(
            [
                "/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                "--inh-caps=+net_bind_service", "--ambient-caps=+net_bind_service", "/usr/bin/python3", "-c", script,
            ], environment: [:])
        defer { child.stop() }
        #expect(await child.nextLine() == "running")
        let process = try #require(try Subject.process(child.pid).process)
        let bind: UInt64 = 1 << 10
        for reading in 0..<2 {
            guard case .holding(let effective?, _) = PinnedProcessReading.read(process) else {
                Issue.record("reading \(reading): \(PinnedProcessReading.read(process))")
                return
            }
            #expect(effective & bind == bind, "reading \(reading): \(String(effective, radix: 16))")
        }
        #expect(try ProcessDirectory.of(process).unprivilegedProgram?.credentialsFixed == true)
        kill(child.pid, SIGUSR1)
        #expect(await child.nextLine() == "lowered")
        guard case .holding(let effective?, _) = PinnedProcessReading.read(process) else {
            Issue.record("after lowering: \(PinnedProcessReading.read(process))")
            return
        }
        #expect(effective & bind == 0, "after lowering: \(String(effective, radix: 16))")
    }

    @Test("the kept status file is read as the process stands at each reading: stopped, then running again")
    func keptStatusIsCurrent() async throws {
        let child = try await child()
        defer { child.stop() }
        let process = try #require(try Subject.process(child.pid).process)
        let directory = try ProcessDirectory.of(process)
        func state() throws -> String {
            let text = String(decoding: try directory.statusBytes(), as: UTF8.self)
            return text.split(separator: "\n").first { $0.hasPrefix("State:") }.map(String.init) ?? text
        }
        // Running or asleep by now (it may not have reached its sleep): not stopped.
        let before = try state()
        #expect(before.hasPrefix("State:") && !before.contains("T (stopped)"), "\(before)")
        kill(child.pid, SIGSTOP)
        var information = siginfo_t()
        #expect(waitid(P_PID, id_t(child.pid), &information, WSTOPPED | WNOWAIT) == 0)
        let stopped = try state()
        #expect(stopped.contains("T (stopped)"), "\(stopped)")
        kill(child.pid, SIGCONT)
        #expect(waitid(P_PID, id_t(child.pid), &information, WCONTINUED | WNOWAIT) == 0)
        let continued = try state()
        #expect(!continued.contains("T (stopped)"), "\(continued)")
    }
}
