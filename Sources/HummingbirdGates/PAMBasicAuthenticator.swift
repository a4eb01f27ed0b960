#if Hummingbird
    public import Hummingbird
    public import HummingbirdAuth
    import HTTPTypes
    import LinuxBackends
    public import RouteGates

    /// HummingbirdAuth authentication by HTTP Basic, the password checked by PAM as the named user
    /// (`PAMPasswordCheck`): a request with the right password gets `HostUser` as
    /// its identity; with a wrong one, 401 and a challenge; when PAM cannot decide, 503. A request
    /// without Basic credentials goes on anonymous.
    ///
    /// ```swift
    /// let router = Router(context: BasicAuthRequestContext<HostUser>.self)
    /// router.add(middleware: try PAMBasicAuthenticator(check: try PAMPasswordCheck(service: "myservice")))
    /// ```
    public struct PAMBasicAuthenticator<Context: AuthRequestContext>: AuthenticatorMiddleware
    where Context.Identity == HostUser {
        /// The PAM check.
        public let check: PAMPasswordCheck
        /// The realm of the challenge a wrong password gets.
        public let realm: String

        /// An authenticator through `check` (the `capctl` PAM service by default).
        public init(check: PAMPasswordCheck? = nil, realm: String = "capctl") throws {
            self.check = try check ?? PAMPasswordCheck()
            self.realm = realm
        }

        /// The request's Basic user when PAM accepts the password; nil without Basic credentials.
        public func authenticate(request: Request, context: Context) async throws -> HostUser? {
            guard let basic = request.headers.basic else { return nil }
            switch await check.check(user: basic.username, password: PAMSecret(basic.password)) {
            case .valid:
                return HostUser(name: basic.username)
            case .invalid(let reason):
                context.logger.notice("PAM refused \(basic.username): \(reason)")
                var headers = HTTPFields()
                headers[.wwwAuthenticate] = RouteGate.basicChallenge(realm: realm)
                throw HTTPError(.unauthorized, headers: headers, message: "wrong user name or password")
            case .unavailable(let reason):
                context.logger.error("PAM could not check \(basic.username): \(reason)")
                throw HTTPError(.serviceUnavailable, message: "the login could not be checked")
            }
        }
    }
#endif
