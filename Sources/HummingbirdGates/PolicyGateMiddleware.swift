#if Hummingbird
    public import Hummingbird
    public import HummingbirdAuth
    import HTTPTypes
    public import RouteGates

    /// Hummingbird middleware that lets a request through only when a policy gate holds for the
    /// request's user (a `RouteGate`): 403 when it fails, 503 when it cannot be decided, 401 when
    /// the request is anonymous or the gate could hold once the user logs in. A password the request
    /// carries by HTTP Basic, for that same user, answers a `kind: pam` login the gate asks.
    ///
    /// The reasons go to the request's logger, never to the client; the client is told the outcome
    /// and the gate's description.
    ///
    /// ```swift
    /// let store = PolicyStore(files: ["policy.yaml"], environment: .linux)
    /// let router = Router(context: BasicAuthRequestContext<HostUser>.self)
    /// router.add(middleware: try PAMBasicAuthenticator())
    /// router.group("admin")
    ///     .add(middleware: PolicyGateMiddleware(RouteGate("admin", policy: store)))
    ///     .get("status") { _, _ in "fine" }
    /// ```
    public struct PolicyGateMiddleware<Context: RequestContext>: RouterMiddleware {
        /// The gate.
        public let gate: RouteGate
        private let user: @Sendable (Request, Context) -> String?
        private let headers: GateHeaders

        /// Gates requests on `gate`, for the user `user` names: the request's authenticated user, by
        /// its name on this host; nil for an anonymous request.
        public init(_ gate: RouteGate, user: @escaping @Sendable (Request, Context) -> String?) {
            self.gate = gate
            self.user = user
            headers = GateHeaders(gate)
        }

        /// Gates requests on `gate`, for HummingbirdAuth's identity of the request.
        public init(_ gate: RouteGate) where Context: AuthRequestContext, Context.Identity: HostUserIdentity {
            self.init(gate) { _, context in context.identity?.hostUserName }
        }

        /// Decides the gate, then calls `next` or throws the refusal's `HTTPError`.
        public func handle(
            _ request: Request, context: Context, next: (Request, Context) async throws -> Response
        ) async throws -> Response {
            let decision = await gate.decide(RouteRequest(request, user: user(request, context), headers: headers))
            if decision.response == .pass { return try await next(request, context) }
            context.logger.notice(
                "route gate \(decision.gate) refused \(request.method) \(request.uri.path): \(decision.outcome.rawValue)",
                metadata: ["reasons": "\(decision.reasons)", "decision_id": "\(decision.decisionID ?? "-")"])
            throw HTTPError(decision)
        }
    }

    extension HTTPError {
        /// A route gate's refusal: its status, the gate's outcome and description as the body, and
        /// the Basic challenge of a 401.
        public init(_ decision: RouteDecision) {
            var headers = HTTPFields()
            if let challenge = decision.challenge { headers[.wwwAuthenticate] = challenge }
            if let id = decision.decisionID, let name = HTTPField.Name("Capctl-Decision-Id") { headers[name] = id }
            self.init(HTTPResponse.Status(code: decision.statusCode), headers: headers, message: decision.message)
        }
    }

    extension RouterMethods {
        /// A group of routes gated on `gate` for HummingbirdAuth's identity of each request: the
        /// route-level form of ``PolicyGateMiddleware``.
        ///
        /// ```swift
        /// let router = Router(context: BasicAuthRequestContext<HostUser>.self)
        /// router.add(middleware: try PAMBasicAuthenticator())
        /// router.gated(by: RouteGate("deploy", policy: store)).post("deploy") { _, _ in "deployed" }
        /// ```
        public func gated(by gate: RouteGate, _ path: RouterPath = "") -> RouterGroup<Context>
        where Context: AuthRequestContext, Context.Identity: HostUserIdentity {
            group(path).add(middleware: PolicyGateMiddleware(gate))
        }
    }
#endif
