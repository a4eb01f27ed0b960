public import FeatureFlags
public import LinuxBackends

/// What a web framework's adapter tells a ``RouteGate`` of one request: who the request
/// authenticated as, the credentials it carried for a login the gate may ask, the headers the
/// gate reads as flag attributes, and what it asked for (for the audit record).
///
/// ```swift
/// let request = RouteRequest(user: "alice", method: "POST", path: "/deploy", headers: ["X-Tier": "gold"])
/// _ = request
/// ```
public struct RouteRequest: Sendable {
    /// The host user the request authenticated as (the framework's identity, by name); nil for an
    /// anonymous request, which a gate decides for ``RouteGate/anonymousUser`` or refuses with 401.
    public var user: String?
    /// The password the request carried (HTTP Basic), for a `kind: pam` login the gate asks of
    /// ``user``; nil when it carried none.
    public var password: PAMSecret?
    /// The request's method, recorded in the audit record.
    public var method: String
    /// The request's path, recorded in the audit record.
    public var path: String
    /// The request's headers that ``RouteGate/headerAttributes`` names, by header name.
    public var headers: [String: String]
    /// Attributes the service adds to the flag evaluation context (a tenant, a plan), laid over
    /// the request's user and headers.
    public var attributes: [String: FlagValue]

    /// A request.
    /// - Parameters:
    ///   - user: The host user it authenticated as; nil for none.
    ///   - password: The password it carried for a login, if any.
    ///   - method: Its method (`GET`).
    ///   - path: Its path.
    ///   - headers: The headers the gate reads (others are ignored).
    ///   - attributes: Flag attributes of the service's own.
    public init(
        user: String?, password: PAMSecret? = nil, method: String, path: String, headers: [String: String] = [:],
        attributes: [String: FlagValue] = [:]
    ) {
        self.user = user
        self.password = password
        self.method = method
        self.path = path
        self.headers = headers
        self.attributes = attributes
    }
}
