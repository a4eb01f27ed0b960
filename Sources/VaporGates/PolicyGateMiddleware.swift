#if Vapor
    import LinuxBackends
    public import RouteGates
    public import Vapor

    /// Vapor middleware that lets a request through only when a policy gate holds for the request's
    /// user (a `RouteGate`): 403 when it fails, 503 when it cannot be decided, 401 when
    /// the request is anonymous or the gate could hold once the user logs in. A password the request
    /// carries by HTTP Basic, for that same user, answers a `kind: pam` login the gate asks.
    ///
    /// The reasons go to the request's logger, never to the client; the client is told the outcome
    /// and the gate's description.
    ///
    /// ```swift
    /// let store = PolicyStore(files: ["policy.yaml"], environment: .linux)
    /// let app = try await Application.make(.development)
    /// app.grouped(try PAMBasicAuthenticator())
    ///     .grouped(PolicyGateMiddleware(RouteGate("admin", policy: store), user: HostUser.self))
    ///     .get("status") { _ in "fine" }
    /// ```
    public struct PolicyGateMiddleware: AsyncMiddleware {
        /// The gate.
        public let gate: RouteGate
        private let user: @Sendable (Request) -> String?

        /// Gates requests on `gate`, for the user `user` names: the request's authenticated user, by
        /// its name on this host; nil for an anonymous request.
        public init(_ gate: RouteGate, user: @escaping @Sendable (Request) -> String?) {
            self.gate = gate
            self.user = user
        }

        /// Gates requests on `gate`, for the identity of type `identity` that `req.auth` holds.
        public init<Identity: Authenticatable & HostUserIdentity>(_ gate: RouteGate, user identity: Identity.Type) {
            self.init(gate) { request in request.auth.get(Identity.self)?.hostUserName }
        }

        /// Decides the gate, then responds with `next` or throws the refusal's `Abort`.
        public func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
            let decision = await gate.decide(routeRequest(request))
            if decision.response == .pass { return try await next.respond(to: request) }
            request.logger.notice(
                "route gate \(decision.gate) refused \(request.method.rawValue) \(request.url.path): \(decision.outcome.rawValue)",
                metadata: ["reasons": "\(decision.reasons)", "decision_id": "\(decision.decisionID ?? "-")"])
            throw Abort(decision)
        }

        private func routeRequest(_ request: Request) -> RouteRequest {
            let name = user(request)
            var headers: [String: String] = [:]
            for header in gate.headerAttributes.keys {
                if let value = request.headers.first(name: header) { headers[header] = value }
            }
            // The password answers only a login of the user the request is for.
            let basic = request.headers.basicAuthorization
            let password = basic.flatMap { $0.username == name ? PAMSecret($0.password) : nil }
            return RouteRequest(
                user: name, password: password, method: request.method.rawValue, path: request.url.path,
                headers: headers)
        }
    }

    extension Abort {
        /// A route gate's refusal: its status, the gate's outcome and description as the reason, and
        /// the Basic challenge of a 401.
        public init(_ decision: RouteDecision) {
            var headers = HTTPHeaders()
            if let challenge = decision.challenge { headers.add(name: .wwwAuthenticate, value: challenge) }
            if let id = decision.decisionID { headers.add(name: "Capctl-Decision-Id", value: id) }
            self.init(HTTPResponseStatus(statusCode: decision.statusCode), headers: headers, reason: decision.message)
        }
    }

    extension RoutesBuilder {
        /// Routes gated on `gate` for the identity of type `identity` that `req.auth` holds: the
        /// route-level form of ``PolicyGateMiddleware``.
        ///
        /// ```swift
        /// let app = try await Application.make(.development)
        /// app.grouped(try PAMBasicAuthenticator()).gated(by: RouteGate("deploy", policy: store), user: HostUser.self)
        ///     .post("deploy") { _ in "deployed" }
        /// ```
        public func gated<Identity: Authenticatable & HostUserIdentity>(
            by gate: RouteGate, user identity: Identity.Type
        ) -> any RoutesBuilder {
            grouped(PolicyGateMiddleware(gate, user: identity))
        }
    }
#endif
