import CLinuxSupport
import ConfigurationFiles
import FeatureFlags
import Foundation
import Glibc
import Locking

/// An OFREP service for tests, written from open-feature/protocol's `service/openapi.yaml`: it
/// evaluates a flagd flag document (with this package's evaluator) for the context each request
/// carries, over plain HTTP on 127.0.0.1, one request per connection.
///
/// - `POST /ofrep/v1/evaluate/flags/{key}`: 200 `{key, value, reason, variant, metadata}` (no
///   `value` when the flag defers to the code default: disabled, or no default variant); 404
///   `{key, errorCode: FLAG_NOT_FOUND, errorDetails}`; 400 `{key, errorCode, errorDetails}`.
/// - `POST /ofrep/v1/evaluate/flags`: 200 `{flags: [...]}` with an ETag (unless ``sendsEntityTag``
///   is off, as flagd's endpoint), 304 when `If-None-Match` matches it.
/// - Knobs a test turns: ``bearerToken`` (401 without it), ``forbidden`` (403), ``retryAfter``
///   (429 with that `Retry-After`), ``flags`` (the document served).
public final class OFREPTestServer: Sendable {
    public struct Request: Sendable {
        public let method: String
        public let path: String
        public let headers: [String: String]
        public let body: String
    }

    private struct Knobs: Sendable {
        var store: FlagStore
        var bearerToken: String?
        var forbidden = false
        var retryAfter: String?
        var sendsEntityTag = true
        var requests: [Request] = []
    }

    /// The knobs and the request log, shared with the serving thread.
    private final class Shared: Sendable {
        let knobs: Lock<Knobs>
        init(_ knobs: Knobs) { self.knobs = Lock(knobs) }
    }

    public let port: Int
    private let listener: Int32
    private let shared: Shared

    /// Serves `document` (flagd's format) on a free port of 127.0.0.1.
    public init(document: String) throws {
        shared = Shared(Knobs(store: FlagStore([try FlagSet.parse(document)])))
        guard let bound = LoopbackListener() else { throw FixtureError("cannot listen on 127.0.0.1") }
        let listener = bound.descriptor
        self.listener = listener
        port = bound.port
        let thread = Thread { [listener, shared] in Self.serve(listener, shared) }
        thread.start()
    }

    deinit {
        // The serving thread closes the socket once accept fails: closed here, its number could
        // be reused by another server's socket before that thread notices, and it would answer
        // that server's clients with this server's flags.
        shutdown(listener, Int32(SHUT_RDWR))
    }

    /// The base URL (before `/ofrep`).
    public var endpoint: String { "http://127.0.0.1:\(port)" }

    public var bearerToken: String? {
        get { shared.knobs.withLock { $0.bearerToken } }
        set { shared.knobs.withLock { $0.bearerToken = newValue } }
    }

    public var forbidden: Bool {
        get { shared.knobs.withLock { $0.forbidden } }
        set { shared.knobs.withLock { $0.forbidden = newValue } }
    }

    public var retryAfter: String? {
        get { shared.knobs.withLock { $0.retryAfter } }
        set { shared.knobs.withLock { $0.retryAfter = newValue } }
    }

    public var sendsEntityTag: Bool {
        get { shared.knobs.withLock { $0.sendsEntityTag } }
        set { shared.knobs.withLock { $0.sendsEntityTag = newValue } }
    }

    /// Replaces the flag document served.
    public func serve(_ document: String) throws {
        let store = FlagStore([try FlagSet.parse(document)])
        shared.knobs.withLock { $0.store = store }
    }

    /// Every request so far, oldest first.
    public var requests: [Request] { shared.knobs.withLock { $0.requests } }

    // MARK: Serving

    private static func serve(_ listener: Int32, _ shared: Shared) {
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if errno == EINTR { continue }
                close(listener)
                return
            }
            _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
            if let request = readRequest(connection) {
                shared.knobs.withLock { $0.requests.append(request) }
                let (status, headers, body) = respond(to: request, shared)
                writeResponse(connection, status: status, headers: headers, body: body)
            }
            close(connection)
        }
    }

    private static func readRequest(_ connection: Int32) -> Request? {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        var headerEnd: Int?
        var contentLength = 0
        while true {
            if let end = headerEnd, bytes.count >= end + contentLength { break }
            let count = chunk.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return nil }
            bytes += chunk[..<count]
            if headerEnd == nil, let range = find([13, 10, 13, 10], in: bytes) {
                headerEnd = range + 4
                let head = String(decoding: bytes[..<range], as: UTF8.self)
                for line in head.split(separator: "\r\n").dropFirst() {
                    let parts = line.split(separator: ":", maxSplits: 1)
                    if parts.count == 2, parts[0].lowercased() == "content-length" {
                        contentLength = Int(parts[1].trimmingCharacters(in: .whitespaces)) ?? 0
                    }
                }
            }
        }
        let end = headerEnd!
        let head = String(decoding: bytes[..<(end - 4)], as: UTF8.self).split(separator: "\r\n")
        let requestLine = head.first?.split(separator: " ") ?? []
        guard requestLine.count >= 2 else { return nil }
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2 { headers[parts[0].lowercased()] = parts[1].trimmingCharacters(in: .whitespaces) }
        }
        return Request(
            method: String(requestLine[0]), path: String(requestLine[1]), headers: headers,
            body: String(decoding: bytes[end..<(end + contentLength)], as: UTF8.self))
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count) where Array(haystack[start..<(start + needle.count)]) == needle
        {
            return start
        }
        return nil
    }

    private static func respond(to request: Request, _ shared: Shared) -> (Int, [String: String], String) {
        let settings = shared.knobs.withLock { $0 }
        if let token = settings.bearerToken, request.headers["authorization"] != "Bearer \(token)" {
            return (401, [:], "")
        }
        if settings.forbidden { return (403, [:], "") }
        if let retryAfter = settings.retryAfter { return (429, ["Retry-After": retryAfter], "") }
        guard request.method == "POST" else { return (405, [:], "") }
        let prefix = "/ofrep/v1/evaluate/flags"
        guard request.path.hasPrefix(prefix) else { return (404, [:], "") }
        let (read, problem) = Self.context(request.body)
        guard let context = read else {
            let body: FlagValue = ["errorCode": "INVALID_CONTEXT", "errorDetails": .string(problem ?? "")]
            return (400, ["Content-Type": "application/json"], body.description)
        }
        let json = ["Content-Type": "application/json"]
        if request.path == prefix {
            let flags = settings.store.flags.keys.sorted().map { key in
                evaluation(key, settings.store.valueDetails(key, default: .null, context: context)).body
            }
            let body = FlagValue.structure(["flags": .list(flags)]).description
            guard settings.sendsEntityTag else { return (200, json, body) }
            let tag = "\"\(fnv(body))\""
            if request.headers["if-none-match"] == tag { return (304, ["ETag": tag], "") }
            return (200, json.merging(["ETag": tag]) { $1 }, body)
        }
        guard request.path.hasPrefix(prefix + "/") else { return (404, [:], "") }
        let key = String(request.path.dropFirst(prefix.count + 1)).removingPercentEncoding ?? ""
        let (status, body) = evaluation(key, settings.store.valueDetails(key, default: .null, context: context))
        return (status, json, body.description)
    }

    /// The request's `context`, with `targetingKey` taken out of the attributes.
    private static func context(_ body: String) -> (FlagEvaluationContext?, String?) {
        guard !body.isEmpty else { return (FlagEvaluationContext(), nil) }
        guard let root = try? JSONDocumentReader.read(body, file: "request"), case .object = root.kind else {
            return (nil, "the request body is not a JSON object")
        }
        guard let raw = root.member("context")?.value else { return (FlagEvaluationContext(), nil) }
        guard case .structure(var attributes) = raw.value else { return (nil, "\"context\" is not an object") }
        var targetingKey: String?
        if let key = attributes.removeValue(forKey: "targetingKey") {
            guard case .string(let text) = key else { return (nil, "\"targetingKey\" is not a string") }
            targetingKey = text
        }
        return (FlagEvaluationContext(targetingKey: targetingKey, attributes: attributes), nil)
    }

    /// A flag's evaluation as the openapi document's schemas have it, with its HTTP status.
    private static func evaluation(_ key: String, _ details: FlagEvaluationDetails<FlagValue>) -> (
        status: Int, body: FlagValue
    ) {
        if let code = details.errorCode {
            let wireCode =
                code == .flagNotFound
                ? "FLAG_NOT_FOUND"
                : (code == .targetingKeyMissing || code == .invalidContext || code == .parseError
                    ? code.rawValue : "GENERAL")
            return (
                code == .flagNotFound ? 404 : 400,
                [
                    "key": .string(key), "errorCode": .string(wireCode),
                    "errorDetails": .string(details.errorMessage ?? ""),
                ]
            )
        }
        var body: [String: FlagValue] = [
            "key": .string(key), "reason": .string(details.reason.rawValue),
            "variant": .string(details.variant ?? ""), "metadata": .structure(details.flagMetadata),
        ]
        // No variant: the flag defers to the code default, so there is no value to send.
        if details.variant != nil { body["value"] = details.value }
        return (200, .structure(body))
    }

    private static func fnv(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return String(hash, radix: 16)
    }

    private static func writeResponse(_ connection: Int32, status: Int, headers: [String: String], body: String) {
        let reasons = [
            200: "OK", 304: "Not Modified", 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden",
            404: "Not Found", 405: "Method Not Allowed", 429: "Too Many Requests",
        ]
        var head = "HTTP/1.1 \(status) \(reasons[status] ?? "Status")\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if status != 304 { head += "Content-Length: \(body.utf8.count)\r\n" }
        head += "Connection: close\r\n\r\n"
        let bytes = Array((head + (status == 304 ? "" : body)).utf8)
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes {
                send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard count > 0 else { return }
            offset += count
        }
    }
}
