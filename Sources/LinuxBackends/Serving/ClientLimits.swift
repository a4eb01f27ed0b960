/// How much of a service one client, one user and all clients together may hold, so that a slow
/// or silent client costs only itself: it holds one slot and one thread until its own deadline,
/// and a user who opens many connections is refused past ``perUser`` while everyone else is
/// still served at once.
///
/// A client counts from the moment it is accepted until its connection is released: reading its
/// request, its PAM conversation, the gated work and the reply. A connection past a limit gets one
/// line, `error: busy: …`, and is closed; nothing else of it is read.
///
/// ```swift
/// // A service with few clients, each allowed 5 s for its request.
/// let limits = ClientLimits(perUser: 4, total: 64, requestTimeout: .seconds(5))
/// let listener = try ClientListener(path: "/run/myservice.sock", limits: limits)
/// ```
public struct ClientLimits: Sendable, Hashable {
    /// Connections of one user (the peer's uid, as the kernel reports it) at once.
    public var perUser: Int
    /// Connections of all users at once.
    public var total: Int
    /// How long a client has, from its connection, to send its whole request line.
    public var requestTimeout: Duration

    /// Limits of `perUser` and `total` connections at once, each with `requestTimeout` to send
    /// its request. Values below one count as one.
    public init(perUser: Int = 16, total: Int = 256, requestTimeout: Duration = .seconds(10)) {
        self.perUser = max(1, perUser)
        self.total = max(1, total)
        self.requestTimeout = requestTimeout
    }
}
