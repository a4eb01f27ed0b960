import CCurl
import ConfigurationFiles
import Locking
import Plumbing

/// The HTTP client of one remote source, on the system's libcurl: the system's certificate
/// authorities, or only those of a given PEM file (read through the trusted reader); redirects
/// never followed (a redirect could carry the `Authorization` header to another host, or downgrade
/// to plain HTTP); only `http` and `https`; no proxy from the environment (what answers is the
/// URL the policy names).
final class HTTPConnection: Sendable {
    /// The PEM text of the only authorities to trust, or nil for the system's.
    private let authorities: [UInt8]?

    /// - Throws: `ConfigurationError` when the certificate authority file cannot be trusted or read,
    ///   or holds no PEM certificate.
    init(certificateAuthorityFile: String?) throws(ConfigurationError) {
        guard let file = certificateAuthorityFile else {
            authorities = nil
            return
        }
        let text = try ConfigurationFile.text(file)
        guard text.contains("-----BEGIN CERTIFICATE-----"), text.contains("-----END CERTIFICATE-----") else {
            throw ConfigurationError("not a PEM certificate file: it holds no \"BEGIN CERTIFICATE\" block", file: file)
        }
        authorities = Array(text.utf8)
    }

    /// Sends `request` and waits for the answer on a thread of its own, so the caller's task stays
    /// cancellable; a cancelled wait ends the exchange within about a second.
    func send(_ request: HTTPRequest) async -> Result<HTTPResponse, HTTPTransferError> {
        let abort = AbortFlag()
        let deadline = ContinuousClock.now + request.timeout + .seconds(2)
        let interrupt: @Sendable () -> Void = { abort.set() }
        let outcome = await BlockingWork.run(deadline: deadline, interrupt: interrupt) {
            self.perform(request, abort: abort)
        }
        switch outcome {
        case .finished(let result): return result
        case .timedOut: return .failure(.timedOut)
        case .cancelled: return .failure(.cancelled)
        }
    }

    /// Sends `request` and blocks until the answer, the timeout or an error.
    func perform(_ request: HTTPRequest, abort: AbortFlag = AbortFlag()) -> Result<HTTPResponse, HTTPTransferError> {
        let library: CurlLibrary
        switch CurlLibrary.shared {
        case .success(let loaded): library = loaded
        case .failure(let error): return .failure(error)
        }
        guard let handle = library.easyInit() else { return .failure(.unavailable("curl_easy_init failed")) }
        defer { library.easyCleanup(handle) }
        let exchange = Exchange(limit: request.maxBodyBytes, abort: abort)
        var headerList: UnsafeMutablePointer<ccurl_slist>? = nil
        defer { if let headerList { library.slistFreeAll(headerList) } }
        for header in request.headers {
            guard let appended = library.slistAppend(headerList, "\(header.name): \(header.value)") else {
                return .failure(.failed("out of memory for the request's headers"))
            }
            headerList = appended
        }
        var errorText = [CChar](repeating: 0, count: Int(CCURL_ERROR_SIZE) + 1)
        let milliseconds = Self.milliseconds(request.timeout)
        let setopt = library.easySetopt

        let code: Int32 = withExtendedLifetime(exchange) {
            let context = Unmanaged.passUnretained(exchange).toOpaque()
            return errorText.withUnsafeMutableBufferPointer { errorBuffer in
                // Never an empty buffer: libcurl reads standard input for a POST whose fields pointer is null.
                let bodySize = request.body?.count ?? 0
                return ((request.body?.isEmpty ?? true) ? [0] : request.body!).withUnsafeBufferPointer { body in
                    var options: [Int32] = []
                    func long(_ option: Int32, _ value: Int) {
                        options.append(ccurl_setopt_long(setopt, handle, option, value))
                    }
                    func pointer(_ option: Int32, _ value: UnsafeRawPointer?) {
                        options.append(ccurl_setopt_pointer(setopt, handle, option, value))
                    }
                    func string(_ option: Int32, _ value: String) {
                        // libcurl copies string options (since 7.17).
                        options.append(value.withCString { ccurl_setopt_pointer(setopt, handle, option, $0) })
                    }
                    string(Int32(CCURLOPT_URL), request.url)
                    string(Int32(CCURLOPT_PROTOCOLS_STR), "http,https")
                    long(Int32(CCURLOPT_FOLLOWLOCATION), 0)
                    string(Int32(CCURLOPT_PROXY), "")
                    long(Int32(CCURLOPT_NOSIGNAL), 1)
                    long(Int32(CCURLOPT_TIMEOUT_MS), milliseconds)
                    long(Int32(CCURLOPT_CONNECTTIMEOUT_MS), milliseconds)
                    string(Int32(CCURLOPT_USERAGENT), "swift-capabilities-RemoteFlags")
                    pointer(Int32(CCURLOPT_ERRORBUFFER), errorBuffer.baseAddress)
                    pointer(Int32(CCURLOPT_HTTPHEADER), headerList.map { UnsafeRawPointer($0) })
                    pointer(Int32(CCURLOPT_WRITEDATA), context)
                    options.append(
                        ccurl_setopt_data_callback(setopt, handle, Int32(CCURLOPT_WRITEFUNCTION)) {
                            data, size, count, context in
                            let exchange = Unmanaged<Exchange>.fromOpaque(context!).takeUnretainedValue()
                            return exchange.receiveBody(UnsafeRawBufferPointer(start: data, count: size * count))
                        })
                    pointer(Int32(CCURLOPT_HEADERDATA), context)
                    options.append(
                        ccurl_setopt_data_callback(setopt, handle, Int32(CCURLOPT_HEADERFUNCTION)) {
                            data, size, count, context in
                            let exchange = Unmanaged<Exchange>.fromOpaque(context!).takeUnretainedValue()
                            return exchange.receiveHeader(UnsafeRawBufferPointer(start: data, count: size * count))
                        })
                    long(Int32(CCURLOPT_NOPROGRESS), 0)
                    pointer(Int32(CCURLOPT_XFERINFODATA), context)
                    options.append(
                        ccurl_setopt_progress_callback(setopt, handle, Int32(CCURLOPT_XFERINFOFUNCTION)) {
                            context, _, _, _, _ in
                            Unmanaged<Exchange>.fromOpaque(context!).takeUnretainedValue().aborted ? 1 : 0
                        })
                    if let authorities {
                        authorities.withUnsafeBytes { bytes in
                            // Copied by libcurl (CURL_BLOB_COPY); the system's store is then not consulted.
                            var blob = ccurl_blob(
                                data: UnsafeMutableRawPointer(mutating: bytes.baseAddress), len: bytes.count,
                                flags: UInt32(CCURL_BLOB_COPY))
                            options.append(ccurl_setopt_pointer(setopt, handle, Int32(CCURLOPT_CAINFO_BLOB), &blob))
                        }
                        pointer(Int32(CCURLOPT_CAINFO), nil)
                        pointer(Int32(CCURLOPT_CAPATH), nil)
                    }
                    if request.method == .post {
                        long(Int32(CCURLOPT_POST), 1)
                        long(Int32(CCURLOPT_POSTFIELDSIZE), bodySize)
                        pointer(Int32(CCURLOPT_POSTFIELDS), body.baseAddress)
                    }
                    if let refused = options.first(where: { $0 != Int32(CCURLE_OK) }) { return -refused }
                    return library.easyPerform(handle)
                }
            }
        }
        if code < 0 {
            return .failure(.unavailable("libcurl refused an option: \(library.describe(-code))"))
        }
        guard code == Int32(CCURLE_OK) else {
            let detail = String(decoding: errorText.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return .failure(
                Self.error(
                    code, detail: detail.isEmpty ? library.describe(code) : detail, exchange))
        }
        var status = 0
        _ = ccurl_getinfo_long(library.easyGetinfo, handle, Int32(CCURLINFO_RESPONSE_CODE), &status)
        return .success(HTTPResponse(status: status, headers: exchange.headers, body: exchange.body))
    }

    private static func error(_ code: Int32, detail: String, _ exchange: Exchange) -> HTTPTransferError {
        switch code {
        case Int32(CCURLE_OPERATION_TIMEDOUT): return .timedOut
        case Int32(CCURLE_GOT_NOTHING), Int32(CCURLE_RECV_ERROR), Int32(CCURLE_SEND_ERROR): return .connectionClosed
        case Int32(CCURLE_WRITE_ERROR) where exchange.exceeded, Int32(CCURLE_FILESIZE_EXCEEDED):
            return .tooLarge(exchange.limit)
        case Int32(CCURLE_ABORTED_BY_CALLBACK): return .cancelled
        case Int32(CCURLE_SSL_CONNECT_ERROR), Int32(CCURLE_PEER_FAILED_VERIFICATION), Int32(CCURLE_SSL_CACERT_BADFILE):
            return .tls(detail)
        default: return .failed(detail)
        }
    }

    private static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        guard seconds < Int64(Int.max / 1000) - 1 else { return Int.max }
        // At least 1: 0 means "no timeout" to libcurl.
        return max(Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000), 1)
    }

    /// The value of `file` as an `Authorization` header: one line of visible ASCII (a trailing
    /// newline is dropped), read through the trusted reader, so neither a policy's text nor a
    /// file others can write supplies a credential, and no value can add a header of its own.
    static func authorization(from file: String) throws(ConfigurationError) -> String {
        var text = try ConfigurationFile.text(file)
        if text.hasSuffix("\r\n") {
            text.removeLast(2)
        } else if text.hasSuffix("\n") {
            text.removeLast()
        }
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 == 0x20 || $0 == 0x09 || (0x21...0x7E).contains($0) }) else {
            throw ConfigurationError(
                "an authorization file holds one line of visible ASCII (\"Bearer TOKEN\"), nothing else", file: file)
        }
        return text
    }
}

/// Set from another thread to end an exchange early (libcurl asks about once a second).
final class AbortFlag: Sendable {
    private let flag = Lock(false)

    func set() { flag.withLock { $0 = true } }

    var isSet: Bool { flag.withLock { $0 } }
}

/// What one exchange has received so far; touched only by libcurl's callbacks on the performing
/// thread, but for `abort`, which another thread may set.
private final class Exchange {
    let limit: Int
    private let abort: AbortFlag
    var body: [UInt8] = []
    var headers: [(name: String, value: String)] = []
    var exceeded = false

    init(limit: Int, abort: AbortFlag) {
        self.limit = limit
        self.abort = abort
    }

    var aborted: Bool { abort.isSet }

    /// Returns what it took; anything else makes libcurl end the exchange (CURLE_WRITE_ERROR).
    func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Int {
        guard body.count + bytes.count <= limit else {
            exceeded = true
            return 0
        }
        body.append(contentsOf: bytes)
        return bytes.count
    }

    /// One header line; a status line starts the headers anew (after a 100 Continue, say).
    func receiveHeader(_ bytes: UnsafeRawBufferPointer) -> Int {
        let line = String(decoding: bytes, as: UTF8.self)
        if line.hasPrefix("HTTP/") {
            headers = []
        } else if let colon = line.firstIndex(of: ":") {
            let name = String(line[..<colon])
            let value = line[line.index(after: colon)...].trimmingWhitespace()
            // A value with a control character is not HTTP (RFC 9110, 5.5); dropped, so none can reach
            // the next request (an ETag is sent back as If-None-Match) or a terminal.
            if !value.unicodeScalars.contains(where: { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7F }) {
                headers.append((name, value))
            }
        }
        return bytes.count
    }
}

extension Substring {
    /// Without leading and trailing spaces, tabs and line breaks (by scalar: "\r\n" is one Character).
    fileprivate func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        let isSpace: (Unicode.Scalar) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" }
        guard let first = scalars.firstIndex(where: { !isSpace($0) }),
            let last = scalars.lastIndex(where: { !isSpace($0) })
        else { return "" }
        return String(scalars[first...last])
    }
}
