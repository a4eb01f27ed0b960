import CLinuxSupport
public import Capabilities
import ConfigurationFiles
import Glibc
import Plumbing
import SystemPackage

/// Whether a TCP service answers: the host name is resolved, then a non-blocking connect
/// is tried on each address within the timeout.
///
/// Statuses: authorized when a connection is established. Denied when the network answered no,
/// with the cause saying how: `.hostNotFound` (the name does not resolve), `.noRoute` (network or
/// host unreachable, or a firewall refused), `.connectionRefused` (the host answered but nothing
/// listens on the port: the host is up, the service is down) or `.timedOut`. Unavailable when
/// nothing was decided: no name server answered (`EAI_AGAIN`, or no answer within the timeout) is
/// `.backendUnreachable`; a local failure (no descriptor left) is `.error`.
///
/// This is the one backend whose status costs network traffic: one name lookup and one
/// connection attempt per address, bounded by `timeout`.
///
/// ```swift
/// let database = try HostReachability(host: "db.internal", port: 5432, timeout: .seconds(2))
/// export.addCondition(AuthorizedFor(database))
/// ```
public struct HostReachability: SubjectCapability {
    /// The host name or address.
    public let host: String
    /// The TCP port.
    public let port: UInt16
    /// The longest a check may take, name resolution included.
    public let timeout: Duration

    /// A check of `host`:`port`. The host must be a valid name (RFC 1123) or an IPv4 or IPv6
    /// address; the port 1 to 65535; the timeout more than zero and at most five minutes.
    public init(host: String, port: Int, timeout: Duration = .seconds(3)) throws(CapabilityConfigurationError) {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        guard Self.isAddress(bare) || Self.isHostName(bare) else {
            throw CapabilityConfigurationError("\"\(host)\" is not a host name or an IP address")
        }
        guard (1...65535).contains(port) else {
            throw CapabilityConfigurationError("port \(port) is out of range (1 to 65535)")
        }
        guard timeout > .zero, timeout <= .seconds(300) else {
            throw CapabilityConfigurationError(
                "the timeout must be more than zero and at most 5 minutes, got \(timeout)")
        }
        self.host = bare
        self.port = UInt16(port)
        self.timeout = timeout
    }

    public var name: String { host.contains(":") ? "host:[\(host)]:\(port)" : "host:\(host):\(port)" }

    /// Resolves and connects on threads of their own (both block); cancelling the calling task
    /// ends the wait at once and throws `CancellationError`.
    public func status() async throws -> CapabilityStatus {
        let (host, port, timeout) = (self.host, self.port, self.timeout)
        let deadline = ContinuousClock.now.advanced(by: timeout)
        let resolution: TCPProbe.Resolution
        if Self.isAddress(host) {
            resolution = TCPProbe.resolve(host, port, numeric: true)  // no name server involved
        } else {
            // getaddrinfo has no timeout of its own: the wait ends at the deadline, the lookup may go on.
            switch await BlockingWork.run(deadline: deadline, { TCPProbe.resolve(host, port, numeric: false) }) {
            case .finished(let found): resolution = found
            case .timedOut:
                return .unavailable(
                    "DNS failure: no name server answered for \(host) within \(timeout)", cause: .backendUnreachable)
            case .cancelled: throw CancellationError()
            }
        }
        if let failure = TCPProbe.failure(of: resolution, host: host) { return failure }
        // Each connect waits at most until the deadline, so this wait needs no deadline of its own.
        let outcome = await BlockingWork.run {
            TCPProbe.connect(to: resolution.addresses, host: host, port: port, timeout: timeout, deadline: deadline)
        }
        guard case .finished(let status) = outcome else { throw CancellationError() }
        return status
    }

    /// Checked again when links, addresses or routes change, and every 30 seconds (a service can
    /// start or stop without any local network event).
    public func statusUpdates() -> CapabilityStatusUpdates {
        let interval = Duration.seconds(30)
        return .rereading(self) {
            let (ticks, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
            let timer = Task {
                while !Task.isCancelled {
                    try? await Task.sleep(for: interval)
                    continuation.yield()
                }
            }
            continuation.onTermination = { _ in timer.cancel() }
            return [NetworkChangeMonitor.changes(), ticks]
        }
    }

    static func isAddress(_ text: String) -> Bool {
        var ipv4 = in_addr()
        var ipv6 = in6_addr()
        return inet_pton(AF_INET, text, &ipv4) == 1 || inet_pton(AF_INET6, text, &ipv6) == 1
    }

    static func isHostName(_ text: String) -> Bool {
        let name = text.hasSuffix(".") ? String(text.dropLast()) : text
        guard !name.isEmpty, name.utf8.count <= 253 else { return false }
        return name.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { label in
            !label.isEmpty && label.utf8.count <= 63 && label.first != "-" && label.last != "-"
                && label.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
        }
    }
}

/// The blocking parts of a reachability check.
enum TCPProbe {
    struct Address: Sendable {
        var family: Int32
        var bytes: [UInt8]
        var text: String
    }

    /// What getaddrinfo answered: its code, and the addresses when it is 0.
    struct Resolution: Sendable {
        var code: Int32 = 0
        var addresses: [Address] = []
    }

    /// The status when resolving decided it (or failed to), nil when there are addresses to try.
    static func failure(of resolution: Resolution, host: String) -> CapabilityStatus? {
        switch resolution.code {
        case 0:
            return resolution.addresses.isEmpty
                ? .denied("DNS failure: \(host) has no TCP address", cause: .hostNotFound) : nil
        // -5 is EAI_NODATA, a GNU extension: the name exists but has no address.
        case EAI_NONAME, -5:
            return .denied("DNS failure: \(host) does not resolve", cause: .hostNotFound)
        // The name servers did not answer, or failed: nothing was decided.
        case EAI_AGAIN:
            return .unavailable(
                "DNS failure: no name server answered for \(host) (try again later)", cause: .backendUnreachable)
        case EAI_FAIL:
            return .unavailable(
                "DNS failure: the name servers failed to answer for \(host)", cause: .backendUnreachable)
        default:
            return .unavailable(
                "DNS failure: \(String(cString: gai_strerror(resolution.code)))", cause: .error)
        }
    }

    static func resolve(_ host: String, _ port: UInt16, numeric: Bool) -> Resolution {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_protocol = Int32(IPPROTO_TCP)
        if numeric { hints.ai_flags = AI_NUMERICHOST }
        var list: UnsafeMutablePointer<addrinfo>?
        let code = getaddrinfo(host, String(port), &hints, &list)
        defer { if let list { freeaddrinfo(list) } }
        var resolution = Resolution(code: code)
        guard code == 0 else { return resolution }
        var cursor = list
        var seen: Set<[UInt8]> = []
        while let entry = cursor {
            defer { cursor = entry.pointee.ai_next }
            guard let address = entry.pointee.ai_addr else { continue }
            let bytes = [UInt8](UnsafeRawBufferPointer(start: address, count: Int(entry.pointee.ai_addrlen)))
            guard seen.insert(bytes).inserted else { continue }
            var text = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            getnameinfo(address, entry.pointee.ai_addrlen, &text, socklen_t(text.count), nil, 0, NI_NUMERICHOST)
            resolution.addresses.append(
                Address(
                    family: entry.pointee.ai_family, bytes: bytes,
                    text: String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)))
        }
        return resolution
    }

    /// Tries each address until one connects or the deadline passes. When every address fails,
    /// the most telling decided answer wins (refused, then no route, then timed out); only when
    /// no address gave one is nothing decided.
    static func connect(
        to addresses: [Address], host: String, port: UInt16, timeout: Duration, deadline: ContinuousClock.Instant
    ) -> CapabilityStatus {
        let clock = ContinuousClock()
        func remainingMilliseconds() -> Int32 {
            let left = clock.now.duration(to: deadline)
            return left <= .zero
                ? 0
                : Int32(clamping: left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000)
        }
        var refused: CapabilityStatus?
        var unreachable: CapabilityStatus?
        var timedOut: CapabilityStatus?
        var undecided: CapabilityStatus?
        for candidate in addresses {
            let target = candidate.family == AF_INET6 ? "[\(candidate.text)]:\(port)" : "\(candidate.text):\(port)"
            let started = clock.now
            switch connect(candidate.family, candidate.bytes, waitingAtMost: remainingMilliseconds()) {
            case .connected:
                return .authorized("reachable: connected to \(target) in \(describe(started.duration(to: clock.now)))")
            case .answered(ECONNREFUSED):
                refused =
                    refused
                    ?? .denied(
                        "refused: \(target) answered, but nothing listens on port \(port)", cause: .connectionRefused)
            case .answered(ENETUNREACH), .answered(ENETDOWN):
                unreachable =
                    unreachable ?? .denied("no route: the network of \(target) is unreachable", cause: .noRoute)
            case .answered(EHOSTUNREACH):
                unreachable = unreachable ?? .denied("no route: \(target) is unreachable", cause: .noRoute)
            case .answered(let code) where code == EACCES || code == EPERM:
                unreachable =
                    unreachable
                    ?? .denied(
                        "no route: a firewall refused the connection to \(target) (\(String(cString: strerror(code))))",
                        cause: .noRoute)
            case .answered(ETIMEDOUT):
                timedOut =
                    timedOut ?? .denied("timed out: no answer from \(target) within \(timeout)", cause: .timedOut)
            case .answered(let code), .failed(let code):
                undecided =
                    undecided
                    ?? .unavailable(
                        "cannot try \(target): \(String(cString: strerror(code)))", cause: .error)
            }
        }
        return refused ?? unreachable ?? timedOut ?? undecided
            ?? .denied("timed out: no address of \(host) tried within \(timeout)", cause: .timedOut)
    }

    private enum Attempt {
        case connected
        /// What the connect came to (an errno; ETIMEDOUT when the time ran out).
        case answered(Int32)
        /// This process could not try (no socket, a failed poll): an errno.
        case failed(Int32)
    }

    private static func connect(_ family: Int32, _ address: [UInt8], waitingAtMost milliseconds: Int32) -> Attempt {
        guard milliseconds > 0 else { return .answered(ETIMEDOUT) }
        guard
            let owned = FileDescriptor(
                adopting: socket(
                    family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue),
                    0))
        else { return .failed(errno) }
        defer { try? owned.close() }
        let fd = owned.rawValue
        let started = address.withUnsafeBytes { raw in
            Glibc.connect(fd, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(raw.count))
        }
        if started == 0 { return .connected }
        guard errno == EINPROGRESS else { return .answered(errno) }
        var waiting = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        var ready: Int32
        repeat { ready = poll(&waiting, 1, milliseconds) } while ready < 0 && errno == EINTR
        guard ready > 0 else { return ready == 0 ? .answered(ETIMEDOUT) : .failed(errno) }
        var failure: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &failure, &length) == 0 else { return .failed(errno) }
        return failure == 0 ? .connected : .answered(failure)
    }

    private static func describe(_ duration: Duration) -> String {
        let microseconds = duration.components.seconds * 1_000_000 + duration.components.attoseconds / 1_000_000_000_000
        return microseconds < 10_000 ? "\(Double(microseconds) / 1000) ms" : "\(microseconds / 1000) ms"
    }
}

extension HostReachability {
    /// The network is the same for every subject on this host: this capability answers as it is.
    public func forSubject(_ subject: Subject) -> any CapabilityType { self }
}
