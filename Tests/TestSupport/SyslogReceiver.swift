import Foundation
import Glibc

/// A real system log receiver of the test's own: rsyslogd (Debian's package) in the foreground,
/// reading datagrams on a socket in a temporary directory (imuxsock) and writing each record, as
/// `FACILITY.SEVERITY PROGRAM: MESSAGE`, to a FIFO the test reads line by line.
public final class SyslogReceiver: @unchecked Sendable {
    // The reader is only used by one nextRecord() at a time.
    public static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: "/usr/sbin/rsyslogd") }

    public let directory: TemporaryDirectory
    /// The socket programs log to (what /dev/log is for the system).
    public let socketPath: String
    private let daemon: DaemonProcess
    private let fifo: Int32
    private var buffer: [UInt8] = []

    public init() throws {
        directory = try TemporaryDirectory(prefix: "syslog")
        socketPath = directory.path + "/log"
        let fifoPath = directory.path + "/records"
        guard mkfifo(fifoPath, 0o600) == 0 else { throw ReceiverError("cannot make a FIFO") }
        // Read and write, so opening never waits for rsyslogd and reading never sees an end.
        fifo = open(fifoPath, O_RDWR | O_CLOEXEC)
        let configuration = try directory.write(
            """
            global(workDirectory="\(directory.path)")
            module(load="imuxsock" SysSock.Use="off")
            input(type="imuxsock" Socket="\(socketPath)")
            template(name="record" type="string" string="%syslogfacility-text%.%syslogseverity-text% %programname%: %msg%\\n")
            *.* action(type="ompipe" pipe="\(fifoPath)" template="record")

            """, to: "rsyslog.conf")
        daemon = try DaemonProcess(
            ["/usr/sbin/rsyslogd", "-n", "-f", configuration, "-i", directory.path + "/pid"], environment: [:])
        try waitForPath(socketPath)
    }

    deinit {
        daemon.stop()
        close(fifo)
    }

    /// The next record rsyslogd received, or nil when none came within ``TestDeadline/wait``.
    public func nextRecord() async -> String? {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { [self] in continuation.resume(returning: readLine()) }
        }
    }

    private func readLine() -> String? {
        let deadline = ContinuousClock.now + TestDeadline.wait
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = chunk.withUnsafeMutableBytes { TestDeadline.read(fifo, into: $0, by: deadline) }
            guard count > 0 else { return nil }
            buffer += chunk.prefix(count)
        }
    }

    public struct ReceiverError: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }
}

/// Waits until `path` exists, with inotify on its directory: no polling, no sleeping.
public func waitForPath(_ path: String) throws {
    let directory = String(path[..<path.lastIndex(of: "/")!])
    let descriptor = inotify_init1(Int32(IN_CLOEXEC))
    guard descriptor >= 0 else { throw SyslogReceiver.ReceiverError("no inotify") }
    defer { close(descriptor) }
    guard inotify_add_watch(descriptor, directory, UInt32(IN_CREATE | IN_MOVED_TO)) >= 0 else {
        throw SyslogReceiver.ReceiverError("cannot watch \(directory)")
    }
    var buffer = [UInt8](repeating: 0, count: 4096)
    while access(path, F_OK) != 0 {
        let count = read(descriptor, &buffer, buffer.count)
        if count < 0, errno != EINTR { throw SyslogReceiver.ReceiverError("cannot read inotify events") }
    }
}

/// Waits until `path` exists without holding one of the few threads Swift's tasks share, so a
/// task of the same test that makes `path` can run.
public func awaitPath(_ path: String) async throws {
    try await awaitBlocking { try waitForPath(path) }
}
