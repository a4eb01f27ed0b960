import Glibc

/// A TCP socket listening on 127.0.0.1 at a port the kernel chose, for test servers.
public struct LoopbackListener {
    let descriptor: Int32
    let port: Int

    /// Binds and listens; nil when the kernel refuses.
    init?(backlog: Int32 = 64) {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(descriptor, pointer, length) == 0 && listen(descriptor, backlog) == 0
                    && getsockname(descriptor, pointer, &length) == 0
            }
        }
        guard bound else {
            close(descriptor)
            return nil
        }
        self.descriptor = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// A port that was free a moment ago, for a server that binds it itself (nginx).
    public static func freePort() -> Int? {
        guard let listener = LoopbackListener(backlog: 1) else { return nil }
        close(listener.descriptor)
        return listener.port
    }
}
