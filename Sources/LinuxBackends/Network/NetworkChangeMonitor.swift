import CLinuxSupport
import Dispatch
import Glibc
import SystemPackage

/// Link, address and route changes from the kernel (rtnetlink), as they happen, for as long as
/// the stream is iterated. Each element means "something changed; read again".
enum NetworkChangeMonitor {
    // rtnetlink multicast groups (linux/rtnetlink.h).
    private static let groups = UInt32(
        RTMGRP_LINK | RTMGRP_IPV4_IFADDR | RTMGRP_IPV4_ROUTE | RTMGRP_IPV6_IFADDR | RTMGRP_IPV6_ROUTE)

    /// A stream of change notifications, or a finished stream when netlink is unavailable.
    static func changes() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let rawDescriptor = socket(
            AF_NETLINK, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue),
            NETLINK_ROUTE)
        guard rawDescriptor >= 0 else {
            continuation.finish()
            return stream
        }
        // Closed here if binding fails, and by the source's cancel handler once it exists.
        let descriptor = FileDescriptor(rawValue: rawDescriptor)
        let fd = descriptor.rawValue
        var address = sockaddr_nl()
        address.nl_family = sa_family_t(AF_NETLINK)
        address.nl_groups = groups
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_nl>.size))
            }
        }
        guard bound == 0 else {
            try? descriptor.close()
            continuation.finish()
            return stream
        }
        let source = DispatchSource.makeReadSource(
            fileDescriptor: fd, queue: DispatchQueue(label: "LinuxBackends.netlink"))
        source.setEventHandler {
            var buffer = [UInt8](repeating: 0, count: 16384)
            var changed = false
            while true {
                let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if count <= 0 { break }
                var offset = 0
                while offset + MemoryLayout<nlmsghdr>.size <= count {
                    let header = buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: nlmsghdr.self) }
                    guard header.nlmsg_len >= UInt32(MemoryLayout<nlmsghdr>.size) else { break }
                    if (UInt16(RTM_NEWLINK)...UInt16(RTM_DELROUTE)).contains(header.nlmsg_type) { changed = true }
                    offset += (Int(header.nlmsg_len) + 3) & ~3
                }
            }
            if changed { continuation.yield() }
        }
        source.setCancelHandler { try? descriptor.close() }
        let box = SourceBox(source)
        continuation.onTermination = { _ in box.source.cancel() }
        source.resume()
        return stream
    }
}

/// Carries the dispatch source into the termination handler; it is only cancelled there.
private final class SourceBox: @unchecked Sendable {
    let source: any DispatchSourceRead
    init(_ source: any DispatchSourceRead) { self.source = source }
}
