import Glibc

/// A password or other secret in memory this package controls: a C buffer that is zeroed
/// when the secret is released, so it does not linger the way a Swift `String` can.
///
/// ```swift
/// let secret = PAMSecret("secret")  // wiped from memory when released
/// _ = secret
/// ```
public final class PAMSecret: @unchecked Sendable {
    // Written once at creation; zeroed and freed in deinit.
    private let bytes: UnsafeMutableBufferPointer<UInt8>

    /// Takes the bytes of `secret` (without a terminating NUL). Prefer the other initializers
    /// where the secret does not exist as a `String` already.
    public convenience init(_ secret: String) {
        self.init(copying: Array(secret.utf8))
    }

    /// Copies `bytes`; the caller should zero its own copy.
    public init(copying bytes: [UInt8]) {
        let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: bytes.count + 1)
        _ = buffer.initialize(from: bytes)
        buffer[bytes.count] = 0
        self.bytes = buffer
    }

    /// Copies `bytes` from memory the caller controls (and should zero afterwards), without
    /// passing through a Swift array or string.
    public init(copying bytes: UnsafeBufferPointer<UInt8>) {
        let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: bytes.count + 1)
        _ = buffer.initialize(from: bytes)
        buffer[bytes.count] = 0
        self.bytes = buffer
    }

    /// Takes ownership of a buffer of `count` bytes plus a NUL, filled in by the caller.
    init(adopting buffer: UnsafeMutableBufferPointer<UInt8>) {
        bytes = buffer
    }

    /// The secret's length in bytes.
    public var count: Int { bytes.count - 1 }

    /// Lends the secret's bytes (without the NUL), to pass them on without a copy: to a client
    /// relaying a login to the service that runs it.
    package func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        body(UnsafeRawBufferPointer(rebasing: UnsafeMutableRawBufferPointer(bytes)[..<count]))
    }

    /// A malloc'd, NUL-terminated copy for PAM, which frees (and, in well-behaved modules, overwrites) it.
    func makeCString() -> UnsafeMutablePointer<CChar>? {
        guard let copy = malloc(bytes.count)?.assumingMemoryBound(to: CChar.self) else { return nil }
        memcpy(copy, bytes.baseAddress!, bytes.count)
        return copy
    }

    deinit {
        explicit_bzero(bytes.baseAddress!, bytes.count)
        bytes.deallocate()
    }
}
