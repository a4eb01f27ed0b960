#if Vapor
    import LinuxBackends
    public import RouteGates
    public import Vapor

    extension HostUser: Authenticatable {}

    /// Vapor authentication by HTTP Basic, the password checked by PAM as the named user
    /// (`PAMPasswordCheck`): a request with the right password is logged in as
    /// `HostUser`; with a wrong one, 401 and a challenge; when PAM cannot decide, 503.
    /// A request without Basic credentials goes on anonymous.
    ///
    /// ```swift
    /// let app = try await Application.make(.development)
    /// let admin = app.grouped(try PAMBasicAuthenticator(check: try PAMPasswordCheck(service: "myservice")))
    /// admin.get("me") { request in try request.auth.require(HostUser.self).name }
    /// ```
    public struct PAMBasicAuthenticator: AsyncBasicAuthenticator {
        /// The PAM check.
        public let check: PAMPasswordCheck
        /// The realm of the challenge a wrong password gets.
        public let realm: String

        /// An authenticator through `check` (the `capctl` PAM service by default).
        public init(check: PAMPasswordCheck? = nil, realm: String = "capctl") throws {
            self.check = try check ?? PAMPasswordCheck()
            self.realm = realm
        }

        /// Logs the request in as the Basic user when PAM accepts the password.
        public func authenticate(basic: BasicAuthorization, for request: Request) async throws {
            switch await check.check(user: basic.username, password: PAMSecret(basic.password)) {
            case .valid:
                request.auth.login(HostUser(name: basic.username))
            case .invalid(let reason):
                request.logger.notice("PAM refused \(basic.username): \(reason)")
                var headers = HTTPHeaders()
                headers.add(name: .wwwAuthenticate, value: RouteGate.basicChallenge(realm: realm))
                throw Abort(.unauthorized, headers: headers, reason: "wrong user name or password")
            case .unavailable(let reason):
                request.logger.error("PAM could not check \(basic.username): \(reason)")
                throw Abort(.serviceUnavailable, reason: "the login could not be checked")
            }
        }
    }
#endif
