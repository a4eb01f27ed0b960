import CLinuxSupport
import Glibc

/// A `NOTIFY_SOCKET` of the test's own: a daemon started with it says `READY=1` when it serves,
/// as systemd's `Type=notify` services do, so a test waits for that message instead of guessing.
public struct NotifySocket: ~Copyable {
    public let path: String
    private let descriptor: Int32

    public init(path: String) throws {
        self.path = path
        descriptor = clinux_unix_socket(path, Int32(SOCK_DGRAM.rawValue), CLINUX_UNIX_BIND)
        guard descriptor >= 0 else { throw FixtureError("cannot bind \(path)") }
    }

    deinit { close(descriptor) }

    /// Returns once `READY=1` arrives; `what` names the daemon in the error when it never does.
    public func waitForReady(_ what: String) throws {
        try waitFor("READY=1", from: what)
    }

    /// Returns once a message with the line `state` (`READY=1`, `STOPPING=1`) arrives.
    public func waitFor(_ state: String, from what: String) throws {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            // A bound on a start that never comes, not a synchronization: readiness is the message.
            let ready = poll(&entry, 1, 60_000)
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { throw FixtureError("\(what) never said \(state)") }
            let count = recv(descriptor, &buffer, buffer.count, 0)
            guard count > 0 else { continue }
            let message = String(decoding: buffer.prefix(count), as: UTF8.self)
            if message.split(separator: "\n").contains(Substring(state)) { return }
        }
    }
}

/// A test fixture (a daemon, a namespace) that could not be set up.
public struct FixtureError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
