import Glibc

/// The interfaces of this network namespace, from getifaddrs.
struct NetworkInterface: Sendable, Equatable {
    var name: String
    var isUp: Bool
    var isRunning: Bool
    var isLoopback: Bool
    /// Addresses in text form; IPv6 link-local ones (fe80::/10) are left out, as they reach no router.
    var addresses: [String]

    /// Up, running, not loopback, and with an address that can reach beyond the link.
    var isUsable: Bool { isUp && isRunning && !isLoopback && !addresses.isEmpty }

    static func all() -> [NetworkInterface] {
        var head: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&head) == 0 else { return [] }
        defer { freeifaddrs(head) }
        var byName: [String: NetworkInterface] = [:]
        var order: [String] = []
        var cursor = head
        while let entry = cursor {
            defer { cursor = entry.pointee.ifa_next }
            let name = String(cString: entry.pointee.ifa_name)
            let flags = Int32(bitPattern: entry.pointee.ifa_flags)
            if byName[name] == nil {
                order.append(name)
                byName[name] = NetworkInterface(
                    name: name, isUp: flags & Int32(IFF_UP) != 0, isRunning: flags & Int32(IFF_RUNNING) != 0,
                    isLoopback: flags & Int32(IFF_LOOPBACK) != 0, addresses: [])
            }
            if let address = entry.pointee.ifa_addr, let text = Self.text(of: address) {
                byName[name]?.addresses.append(text)
            }
        }
        return order.compactMap { byName[$0] }
    }

    private static func text(of address: UnsafeMutablePointer<sockaddr>) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            return address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { ipv4 -> String? in
                var raw = ipv4.pointee.sin_addr
                guard inet_ntop(AF_INET, &raw, &buffer, socklen_t(buffer.count)) != nil else { return nil }
                return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            }
        case AF_INET6:
            return address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { ipv6 -> String? in
                var raw = ipv6.pointee.sin6_addr
                let firstBytes = withUnsafeBytes(of: &raw) { ($0[0], $0[1]) }
                if firstBytes.0 == 0xFE, firstBytes.1 & 0xC0 == 0x80 { return nil }
                guard inet_ntop(AF_INET6, &raw, &buffer, socklen_t(buffer.count)) != nil else { return nil }
                return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            }
        default:
            return nil
        }
    }
}

/// Default routes of this network namespace, from /proc/net/route and /proc/net/ipv6_route.
struct DefaultRoute: Sendable, Equatable {
    var interface: String
    var isIPv6: Bool

    static func all() -> [DefaultRoute] {
        var routes: [DefaultRoute] = []
        // Iface Destination Gateway Flags ...; a default route has destination 0 and RTF_UP (0x1).
        for fields in table("/proc/net/route").dropFirst() where fields.count > 3 {
            if fields[1] == "00000000", let flags = Int(fields[3], radix: 16), flags & 0x1 != 0 {
                routes.append(DefaultRoute(interface: fields[0], isIPv6: false))
            }
        }
        // dest prefix-length src src-length next-hop metric refcount use flags interface
        for fields in table("/proc/net/ipv6_route") where fields.count >= 10 {
            if fields[0] == String(repeating: "0", count: 32), fields[1] == "00", fields[9] != "lo",
                let flags = Int(fields[8], radix: 16), flags & 0x1 != 0, flags & 0x0200 == 0
            {
                routes.append(DefaultRoute(interface: fields[9], isIPv6: true))
            }
        }
        return routes
    }

    private static func table(_ path: String) -> [[String]] {
        guard let bytes = try? FileContents.bytes(of: path) else { return [] }
        return String(decoding: bytes, as: UTF8.self).split(separator: "\n").map {
            $0.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        }
    }
}
