#if Hummingbird
    import Hummingbird
    import HummingbirdAuth
    import HTTPTypes
    import LinuxBackends
    import RouteGates

    extension RouteRequest {
        /// What `gate` reads of a Hummingbird request for `user`: its method and path, the headers the
        /// gate names, and a Basic password given for that same user (it answers only their login).
        init(_ request: Request, user: String?, gate: RouteGate) {
            var headers: [String: String] = [:]
            for header in gate.headerAttributes.keys {
                if let name = HTTPField.Name(header), let value = request.headers[name] { headers[header] = value }
            }
            let basic = request.headers.basic
            self.init(
                user: user, password: basic.flatMap { $0.username == user ? PAMSecret($0.password) : nil },
                method: request.method.rawValue, path: request.uri.path, headers: headers)
        }
    }
#endif
