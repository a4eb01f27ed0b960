#if Hummingbird
    import Hummingbird
    import HummingbirdAuth
    import HTTPTypes
    import LinuxBackends
    import RouteGates

    /// The headers a gate reads as flag attributes, by their names as the gate has them and as
    /// HTTP field names: parsed once per middleware, not per request.
    struct GateHeaders: Sendable {
        let names: [(header: String, field: HTTPField.Name)]

        init(_ gate: RouteGate) {
            names = gate.headerAttributes.keys.sorted().compactMap { header in
                HTTPField.Name(header).map { (header, $0) }
            }
        }
    }

    extension RouteRequest {
        /// What a gate reads of a Hummingbird request for `user`: its method and path, the headers
        /// the gate names, and a Basic password given for that same user (it answers only their login).
        init(_ request: Request, user: String?, headers gateHeaders: GateHeaders) {
            var headers: [String: String] = [:]
            for (header, field) in gateHeaders.names {
                if let value = request.headers[field] { headers[header] = value }
            }
            let basic = request.headers.basic
            self.init(
                user: user, password: basic.flatMap { $0.username == user ? PAMSecret($0.password) : nil },
                method: request.method.rawValue, path: request.uri.path, headers: headers)
        }
    }
#endif
