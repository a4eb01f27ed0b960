import CLinuxSupport
import Glibc

/// A Unix stream socket listening at `path` (close-on-exec), made before the server that serves
/// it starts: a client can connect at once, with no wait for the server to bind and listen.
public func listeningUnixSocket(at path: String) throws -> Int32 {
    try unixSocket(at: path, type: Int32(SOCK_STREAM.rawValue), use: CLINUX_UNIX_LISTEN)
}

/// A Unix socket bound at `path` that does not listen: a stream socket, or a datagram one.
public func boundUnixSocket(at path: String, datagram: Bool) throws -> Int32 {
    try unixSocket(at: path, type: Int32((datagram ? SOCK_DGRAM : SOCK_STREAM).rawValue), use: CLINUX_UNIX_BIND)
}

/// Waits until a server of this process or another listens at `path`. The file appears when the
/// server binds and accepts only once it listens, a moment later: until then a connection is
/// refused, and is tried again (no sleep: the server is running its next system call).
public func awaitListening(_ path: String) async throws {
    try await awaitPath(path)
    while true {
        let probe = clinux_unix_socket(path, Int32(SOCK_STREAM.rawValue), CLINUX_UNIX_CONNECT)
        if probe >= 0 {
            close(probe)
            return
        }
        guard -probe == ECONNREFUSED else {
            throw DaemonProcess.DaemonError("cannot connect to \(path): \(String(cString: strerror(-probe)))")
        }
        await Task.yield()
    }
}

private func unixSocket(at path: String, type: Int32, use: clinux_unix_socket_use) throws -> Int32 {
    let descriptor = clinux_unix_socket(path, type, use)
    guard descriptor >= 0 else {
        throw DaemonProcess.DaemonError("cannot make a socket at \(path): \(String(cString: strerror(-descriptor)))")
    }
    return descriptor
}
