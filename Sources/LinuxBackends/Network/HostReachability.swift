import CLinuxSupport
public import Capabilities
import ConfigurationFiles
import Dispatch
import Glibc

/// Whether a TCP service answers: the host name is resolved, then a non-blocking connect
/// is tried on each address within the timeout.
///
/// Statuses: authorized when a connection is established; denied otherwise, with a reason
/// that starts with what failed: `DNS failure` (the name does not resolve, or no name server
/// answered in time), `no route` (network or host unreachable), `refused` (the host answered
/// but nothing listens on the port: the host is up, the service is down), or `timed out`.
///
/// This is the one backend whose status costs network traffic: one name lookup and one
/// connection attempt per address, bounded by `timeout`.
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

    public func status() async throws -> CapabilityStatus {
        let (host, port, timeout) = (self.host, self.port, self.timeout)
        return await withCheckedContinuation { continuation in
            // Resolution and connect block; keep them off the cooperative pool.
            TCPProbe.blockingWork.async {
                continuation.resume(returning: TCPProbe.check(host: host, port: port, timeout: timeout))
            }
        }
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

/// The blocking part of a reachability check.
enum TCPProbe {
    /// Where blocking lookups and connects run. A queue of its own (not the global one, which
    /// keeps to one thread per core) gets a thread per waiting job, so a slow name server
    /// cannot hold up other checks.
    static let blockingWork = DispatchQueue(label: "LinuxBackends.TCPProbe", attributes: .concurrent)

    private final class Resolution: @unchecked Sendable {
        // Written by the resolver thread before it signals; read only after the signal.
        var code: Int32 = 0
        var addresses: [(family: Int32, address: [UInt8], text: String)] = []
    }

    static func check(host: String, port: UInt16, timeout: Duration) -> CapabilityStatus {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        func remainingMilliseconds() -> Int32 {
            let left = clock.now.duration(to: deadline)
            return left <= .zero
                ? 0
                : Int32(clamping: left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000)
        }

        // Resolve on a thread of its own: getaddrinfo has no timeout, and a dead name server must not outlast ours.
        let resolution = Resolution()
        let isAddress = HostReachability.isAddress(host)
        if isAddress {
            resolve(host, port, numeric: true, into: resolution)  // no name server involved
        } else {
            let resolved = DispatchSemaphore(value: 0)
            blockingWork.async {
                resolve(host, port, numeric: false, into: resolution)
                resolved.signal()
            }
            guard resolved.wait(timeout: .now() + .milliseconds(Int(remainingMilliseconds()))) == .success else {
                return .denied("DNS failure: no answer for \(host) within \(timeout)")
            }
        }
        guard resolution.code == 0 else {
            let code = resolution.code
            switch code {
            // -5 is EAI_NODATA, a GNU extension.
            case EAI_NONAME, -5, EAI_FAMILY:
                return .denied("DNS failure: \(host) does not resolve")
            case EAI_AGAIN:
                return .denied("DNS failure: no name server answered for \(host) (try again later)")
            default:
                return .denied("DNS failure: \(String(cString: gai_strerror(code)))")
            }
        }
        guard !resolution.addresses.isEmpty else { return .denied("DNS failure: \(host) has no TCP address") }

        var refused: String?
        var unreachable: String?
        var timedOut: String?
        var other: String?
        for candidate in resolution.addresses {
            let target = candidate.family == AF_INET6 ? "[\(candidate.text)]:\(port)" : "\(candidate.text):\(port)"
            let started = clock.now
            let outcome = connect(candidate.family, candidate.address, waitingAtMost: remainingMilliseconds())
            switch outcome {
            case 0:
                let elapsed = started.duration(to: clock.now)
                return .authorized("reachable: connected to \(target) in \(describe(elapsed))")
            case ECONNREFUSED:
                refused = refused ?? "refused: \(target) answered, but nothing listens on port \(port)"
            case ENETUNREACH:
                unreachable = unreachable ?? "no route: the network of \(target) is unreachable"
            case EHOSTUNREACH:
                unreachable = unreachable ?? "no route: \(target) is unreachable"
            case ETIMEDOUT:
                timedOut = timedOut ?? "timed out: no answer from \(target) within \(timeout)"
            default:
                other = other ?? "cannot connect to \(target): \(String(cString: strerror(outcome)))"
            }
        }
        return .denied(refused ?? unreachable ?? timedOut ?? other ?? "cannot connect to \(host):\(port)")
    }

    private static func resolve(_ host: String, _ port: UInt16, numeric: Bool, into resolution: Resolution) {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_protocol = Int32(IPPROTO_TCP)
        if numeric { hints.ai_flags = AI_NUMERICHOST }
        var list: UnsafeMutablePointer<addrinfo>?
        let code = getaddrinfo(host, String(port), &hints, &list)
        defer { if let list { freeaddrinfo(list) } }
        resolution.code = code
        guard code == 0 else { return }
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
                (
                    entry.pointee.ai_family, bytes,
                    String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                ))
        }
    }

    /// 0 when connected, otherwise the error (ETIMEDOUT when the time ran out).
    private static func connect(_ family: Int32, _ address: [UInt8], waitingAtMost milliseconds: Int32) -> Int32 {
        guard milliseconds > 0 else { return ETIMEDOUT }
        let fd = socket(
            family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return errno }
        defer { close(fd) }
        let started = address.withUnsafeBytes { raw in
            Glibc.connect(fd, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(raw.count))
        }
        if started == 0 { return 0 }
        guard errno == EINPROGRESS else { return errno }
        var waiting = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        var ready: Int32
        repeat { ready = poll(&waiting, 1, milliseconds) } while ready < 0 && errno == EINTR
        guard ready > 0 else { return ready == 0 ? ETIMEDOUT : errno }
        var failure: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &failure, &length) == 0 else { return errno }
        return failure
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
