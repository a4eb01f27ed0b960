/// One request to a flag service.
struct HTTPRequest: Sendable {
    enum Method: String, Sendable {
        case get = "GET"
        case post = "POST"
    }

    var url: String
    var method: Method = .get
    /// Sent in this order; a name may repeat.
    var headers: [(name: String, value: String)] = []
    var body: [UInt8]? = nil
    /// For the whole exchange, connecting included.
    var timeout: Duration
    /// A longer body ends the exchange with ``HTTPTransferError/tooLarge(_:)``.
    var maxBodyBytes: Int

    /// Adds a header, or replaces every header of that name (compared without case).
    mutating func setHeader(_ name: String, _ value: String) {
        headers.removeAll { $0.name.lowercased() == name.lowercased() }
        headers.append((name, value))
    }
}

/// A service's answer: the final status, its headers and its body.
struct HTTPResponse: Sendable {
    var status: Int
    var headers: [(name: String, value: String)]
    var body: [UInt8]

    /// The first header of that name (compared without case).
    func header(_ name: String) -> String? {
        let lowered = name.lowercased()
        return headers.first { $0.name.lowercased() == lowered }?.value
    }

    /// The body as text; bytes that are not UTF-8 are replaced.
    var text: String { String(decoding: body, as: UTF8.self) }

    /// The standard phrase for `status` (RFC 9110), never the server's: nothing a server sends reaches
    /// a terminal unchecked.
    static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 100: "Continue"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 206: "Partial Content"
        case 300: "Multiple Choices"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 406: "Not Acceptable"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 410: "Gone"
        case 413: "Content Too Large"
        case 415: "Unsupported Media Type"
        case 422: "Unprocessable Content"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default: "(no standard phrase)"
        }
    }
}

/// Why an exchange did not give an answer.
enum HTTPTransferError: Error, Sendable, CustomStringConvertible {
    /// No HTTP client: libcurl is missing or unusable.
    case unavailable(String)
    /// The timeout passed first.
    case timedOut
    /// The service closed the connection, or sent nothing.
    case connectionClosed
    /// The body was longer than the request allows.
    case tooLarge(Int)
    /// The TLS handshake or the certificate check failed.
    case tls(String)
    /// The caller stopped waiting.
    case cancelled
    /// Anything else, in libcurl's words.
    case failed(String)

    var description: String {
        switch self {
        case .unavailable(let reason): "no HTTP client: \(reason)"
        case .timedOut: "no answer in time"
        case .connectionClosed: "the connection was closed"
        case .tooLarge(let limit): "the answer is larger than \(limit) bytes"
        case .tls(let reason): "TLS: \(reason)"
        case .cancelled: "cancelled"
        case .failed(let reason): reason
        }
    }
}
