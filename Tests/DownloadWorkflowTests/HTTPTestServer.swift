import CLinuxSupport
import Foundation
import Glibc
import Locking

/// An HTTP/1.1 server on 127.0.0.1 that this test owns, answering each path with a script of
/// behaviours (the last one repeats): a body, a status, a dropped connection, a stall that
/// holds the connection open until the server stops, or a body sent in two parts with a stall
/// between them until the test resumes it.
final class HTTPTestServer: @unchecked Sendable {
    enum Behaviour {
        case ok(Data)
        case status(Int)
        case drop
        case stall
        /// The full length is announced and the first `pauseAfter` bytes sent; the rest follows
        /// ``resume()``.
        case okInParts(Data, pauseAfter: Int)
    }

    let port: Int
    private let listener: Int32
    private let script: Lock<[String: [Behaviour]]>
    private let requests = Lock<[String]>([])
    private let stalled = DispatchSemaphore(value: 0)
    private let release = DispatchSemaphore(value: 0)

    init(_ routes: [String: [Behaviour]]) throws {
        script = Lock(routes)
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) }
        }
        guard bound == 0, listen(listener, 16) == 0 else { throw POSIXError(.EADDRINUSE) }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        self.listener = listener
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// The paths requested so far, in order.
    var requested: [String] { requests.withLock { $0 } }

    /// Waits until a request hit a `.stall`, or sent the first part of `.okInParts`.
    func waitForStall() { stalled.wait() }

    /// Sends the rest of a body held back by `.okInParts`.
    func resume() { release.signal() }

    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        for _ in 0..<8 { release.signal() }
    }

    private func acceptLoop() {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            Thread.detachNewThread { [self] in serve(connection) }
        }
    }

    private func serve(_ connection: Int32) {
        defer { close(connection) }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !received.ends(with: Array("\r\n\r\n".utf8)) {
            let count = read(connection, &buffer, buffer.count)
            guard count > 0 else { return }
            received += buffer[0..<count]
        }
        let line = String(decoding: received.prefix { $0 != UInt8(ascii: "\r") }, as: UTF8.self)
        let path = line.split(separator: " ").dropFirst().first.map(String.init) ?? "/"
        requests.withLock { $0.append(path) }
        let behaviour = script.withLock { script -> Behaviour in
            guard var steps = script[path], let first = steps.first else { return .status(404) }
            if steps.count > 1 { steps.removeFirst() }
            script[path] = steps
            return first
        }
        switch behaviour {
        case .ok(let body): respond(connection, status: 200, body: body)
        case .status(let status): respond(connection, status: status, body: Data("status \(status)\n".utf8))
        case .drop: return
        case .stall:
            stalled.signal()
            release.wait()
        case .okInParts(let body, let pauseAfter):
            let head = "HTTP/1.1 200 OK\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n"
            guard send(connection, Array(head.utf8) + Array(body.prefix(pauseAfter))) else { return }
            stalled.signal()
            release.wait()
            _ = send(connection, Array(body.dropFirst(pauseAfter)))
        }
    }

    private func respond(_ connection: Int32, status: Int, body: Data) {
        let head =
            "HTTP/1.1 \(status) \(status == 200 ? "OK" : "Error")\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        _ = send(connection, Array(head.utf8) + Array(body))
    }

    /// Writes all of `bytes`; false if the client went away.
    private func send(_ connection: Int32, _ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
            guard count > 0 else { return false }
            sent += count
        }
        return true
    }
}

extension Array where Element == UInt8 {
    fileprivate func ends(with suffix: [UInt8]) -> Bool {
        count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
    }
}
