package import SystemPackage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

// Descriptors are swift-system's `FileDescriptor` everywhere in the package (closed with
// `closeAfter` or a `defer` right after they are opened, so no path leaks one); these are the
// Linux options it does not spell.
extension FileDescriptor.OpenOptions {
    /// `O_NOCTTY`: opening a terminal never makes it the process's controlling terminal.
    package static var noControllingTerminal: Self { Self(rawValue: O_NOCTTY) }
}

extension Errno {
    /// The error of the last failed system call on this thread, for calls swift-system does not wrap.
    package static var current: Errno { Errno(rawValue: errno) }
}

extension FileDescriptor {
    /// Owns the descriptor a system call returned; nil when it returned none (a negative
    /// number), so no -1 is ever carried as a descriptor. Close it with a `defer` right after.
    package init?(adopting raw: Int32) {
        guard raw >= 0 else { return nil }
        self.init(rawValue: raw)
    }

    /// A connected pair of Unix stream sockets, both close-on-exec (`socketpair(2)`). A socket
    /// rather than a pipe where the writer must get EPIPE, not SIGPIPE, once the reader is gone.
    package static func socketPair() throws(Errno) -> (FileDescriptor, FileDescriptor) {
        var ends: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
            throw .current
        }
        return (FileDescriptor(rawValue: ends[0]), FileDescriptor(rawValue: ends[1]))
    }

    /// Whether this is a Unix stream socket that listens: what socket activation hands over.
    package var isListeningUnixStreamSocket: Bool {
        func option(_ name: Int32) -> Int32? {
            var value: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            return getsockopt(rawValue, SOL_SOCKET, name, &value, &length) == 0 ? value : nil
        }
        return option(SO_DOMAIN) == AF_UNIX && option(SO_TYPE) == Int32(SOCK_STREAM.rawValue)
            && option(SO_ACCEPTCONN) == 1
    }
}
