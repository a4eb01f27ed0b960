#if Hummingbird
    public import Hummingbird
    public import HummingbirdAuth
    public import RouteGates

    /// A route gate as a HummingbirdAuth `AuthorizationPolicy`, for `AuthorizationPolicyMiddleware`
    /// and its combinators: true only when the gate holds. A gate that cannot be decided is never
    /// true, nor merely false: it throws 503, and a gate that needs a login throws 401, so neither
    /// reads as the policy middleware's "denied" (403).
    ///
    /// ```swift
    /// let router = Router(context: BasicAuthRequestContext<HostUser>.self)
    /// router.add(middleware: try PAMBasicAuthenticator())
    /// router.add(middleware: AuthorizationPolicyMiddleware(PolicyAuthorization<HostUser>(RouteGate("admin", policy: store))))
    /// ```
    public struct PolicyAuthorization<Identity: HostUserIdentity>: AuthorizationPolicy {
        /// The gate.
        public let gate: RouteGate
        private let headers: GateHeaders

        /// The policy `gate` decides.
        public init(_ gate: RouteGate) {
            self.gate = gate
            headers = GateHeaders(gate)
        }

        /// Whether the gate holds for `identity`; throws the refusal when it could not be decided
        /// (503) or needs a login (401).
        public func isAuthorized(identity: Identity, request: Request) async throws -> Bool {
            let decision = await gate.decide(RouteRequest(request, user: identity.hostUserName, headers: headers))
            switch decision.response {
            case .pass: return true
            case .forbidden: return false
            case .unauthorized, .unavailable: throw HTTPError(decision)
            }
        }
    }
#endif
