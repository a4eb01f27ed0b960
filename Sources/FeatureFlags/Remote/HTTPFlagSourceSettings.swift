public import ConfigurationFiles

/// A flag definition document polled over HTTP, as flagd's HTTP sync does: what a policy file's
/// `flags: { http: [...] }` declares. The `RemoteFlags` module's `HTTPFlagSource` follows it.
///
/// ```swift
/// let remote = HTTPFlagSourceSettings(
///     url: "https://flags.example.com/flags.json", authorizationFile: "/etc/myservice/flags.token",
///     interval: .seconds(60))
/// print(remote.maxStaleness)
/// ```
public struct HTTPFlagSourceSettings: Sendable, Hashable {
    /// The document's URL (`https://` or `http://`).
    public var url: String
    /// A file holding the `Authorization` header's value (`Bearer ...`), read through the
    /// trusted reader before each request: never from the policy text.
    public var authorizationFile: String?
    /// A PEM file of the certificate authorities to trust for this URL instead of the system's.
    public var certificateAuthorityFile: String?
    /// How often to ask.
    public var interval: Duration
    /// How much each wait may differ from `interval`, as a fraction (0 to 0.5), so hosts that
    /// started together do not ask together.
    public var jitter: Double
    /// How long one request may take, connecting included (a refused connection is tried again
    /// until then). A command that evaluates once waits at most this long for a source that is due.
    public var timeout: Duration
    /// How long the flags are used without a successful refresh; past it they are an error.
    public var maxStaleness: Duration
    /// Where the last good copy is kept, so the host starts without the network (nil: nowhere).
    public var cacheFile: String?
    /// Where it was declared, for messages.
    public var location: FileLocation?

    /// The defaults: every 30 s, 10% jitter, 5 s timeout, flags usable for an hour without a refresh.
    public init(
        url: String, authorizationFile: String? = nil, certificateAuthorityFile: String? = nil,
        interval: Duration = .seconds(30), jitter: Double = 0.1, timeout: Duration = .seconds(5),
        maxStaleness: Duration = .seconds(3600), cacheFile: String? = nil, location: FileLocation? = nil
    ) {
        self.url = url
        self.authorizationFile = authorizationFile
        self.certificateAuthorityFile = certificateAuthorityFile
        self.interval = interval
        self.jitter = jitter
        self.timeout = timeout
        self.maxStaleness = maxStaleness
        self.cacheFile = cacheFile
        self.location = location
    }
}
