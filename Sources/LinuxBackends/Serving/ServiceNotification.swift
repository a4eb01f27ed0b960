import CLinuxSupport
import Glibc
import SystemPackage

/// systemd's notification protocol (sd_notify(3)): `READY=1`, `STOPPING=1` and the like as one
/// datagram to the socket `NOTIFY_SOCKET` names, so `capctl watch` can run as a `Type=notify`
/// service, and capctld as one. Without `NOTIFY_SOCKET`, nothing is sent.
///
/// ```swift
/// ServiceNotification.send("READY=1\nSTATUS=serving /run/myservice.sock")
/// ```
public enum ServiceNotification {
    /// Sends `state` (`READY=1`, `STOPPING=1`); false when there is no socket or it cannot be reached.
    @discardableResult
    public static func send(_ state: String) -> Bool {
        guard let variable = getenv("NOTIFY_SOCKET") else { return false }
        let name = Array(String(cString: variable).utf8)
        // A path, or an abstract socket written with a leading "@" (sent with a leading NUL).
        guard let first = name.first, first == UInt8(ascii: "/") || first == UInt8(ascii: "@") else { return false }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard name.count < capacity else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { path in
            path.copyBytes(from: name)
            if first == UInt8(ascii: "@") { path[0] = 0 }
        }
        // An abstract name's length is exact; a path's includes its terminating NUL.
        let length = MemoryLayout<sa_family_t>.size + name.count + (first == UInt8(ascii: "@") ? 0 : 1)
        guard
            let owned = FileDescriptor(
                adopting: socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0))
        else { return false }
        defer { try? owned.close() }
        let descriptor = owned.rawValue
        let message = Array(state.utf8)
        let sent = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                sendto(descriptor, message, message.count, Int32(MSG_NOSIGNAL), address, socklen_t(length))
            }
        }
        return sent == message.count
    }
}
