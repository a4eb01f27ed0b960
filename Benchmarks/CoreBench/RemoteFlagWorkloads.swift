import FeatureFlags
import Foundation
import Glibc
import RemoteFlags

/// Flags that came from a service, against the same flags from a file: a flagd document fetched
/// over HTTP by `HTTPFlagSource`, and an OFREP bulk evaluation cached by `OFREPProvider`, both
/// served by a responder on 127.0.0.1 of the benchmark's own.
enum RemoteFlagWorkloads {
    /// Answers every request with `body` (one request per connection), until the process ends.
    final class Responder: Sendable {
        let port: Int

        init(body: String, contentType: String) {
            let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                    bind(listener, pointer, length) == 0 && listen(listener, 16) == 0
                        && getsockname(listener, pointer, &length) == 0
                }
            }
            precondition(bound, "cannot listen on 127.0.0.1")
            port = Int(UInt16(bigEndian: address.sin_port))
            let response = Array(
                "HTTP/1.1 200 OK\r\nContent-Type: \(contentType)\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
                    .utf8)
            Thread {
                var buffer = [UInt8](repeating: 0, count: 65536)
                while true {
                    let connection = accept(listener, nil, nil)
                    guard connection >= 0 else { continue }
                    var received: [UInt8] = []
                    // The request ends with its headers and, for a POST, a small body: read until quiet.
                    while !received.contains(13) || !String(decoding: received, as: UTF8.self).contains("\r\n\r\n") {
                        let count = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
                        guard count > 0 else { break }
                        received += buffer[..<count]
                    }
                    let head = String(decoding: received, as: UTF8.self)
                    if let range = head.range(of: "content-length: ", options: .caseInsensitive) {
                        let length = Int(head[range.upperBound...].prefix { $0.isNumber }) ?? 0
                        let bodyStart = head.range(of: "\r\n\r\n")!.upperBound
                        var have = head.utf8.distance(from: bodyStart, to: head.endIndex)
                        while have < length {
                            let count = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
                            guard count > 0 else { break }
                            have += count
                        }
                    }
                    _ = response.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                    close(connection)
                }
            }.start()
        }
    }

    /// The bulk evaluation of the benchmark's static flag, as an OFREP service answers it.
    static let bulkEvaluation = """
        {"flags": [{"key": "static-flag", "value": true, "reason": "STATIC", "variant": "on"}]}
        """

    /// Seconds for `count` evaluations with details of the static flag from `store`.
    static func storeDetails(_ store: FlagStore, _ count: Int) -> (seconds: Double, on: Int) {
        var on = 0
        let start = ContinuousClock.now
        for _ in 0..<count where store.evaluation("static-flag", default: false).value { on += 1 }
        return (Workloads.seconds(since: start), on)
    }

    /// Seconds for `count` evaluations with details of the static flag from `provider`'s cache.
    static func providerDetails(_ provider: OFREPProvider, _ count: Int) -> (seconds: Double, on: Int) {
        var on = 0
        let start = ContinuousClock.now
        for _ in 0..<count where provider.resolveBooleanEvaluation("static-flag", default: false, context: nil).value {
            on += 1
        }
        return (Workloads.seconds(since: start), on)
    }
}
