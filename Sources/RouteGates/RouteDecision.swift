public import CapabilityPolicy

/// A gate's decision for one request, and the HTTP answer it makes: the next handler when the
/// gate holds, 403 when it fails, 503 when it could not be decided (never a pass), 401 when it
/// could hold after the user logs in (with a Basic challenge) or the request is anonymous.
///
/// ```swift
/// let store = PolicyStore(files: ["/etc/myservice/policy.yaml"], environment: .linux)
/// let decision = await RouteGate("admin", policy: store).decide(RouteRequest(user: "alice", method: "GET", path: "/"))
/// if decision.response != .pass { print(decision.statusCode, decision.reasons) }
/// ```
public struct RouteDecision: Sendable, Equatable {
    /// What the request gets.
    public enum Response: Sendable, Equatable {
        /// The gate holds: on to the next handler.
        case pass
        /// 401: the request is anonymous, or the gate could hold once the user logs in (its
        /// `kind: pam` login, answered by the request's HTTP Basic password).
        case unauthorized
        /// 403: the gate does not hold for this user.
        case forbidden
        /// 503: the gate could not be decided (a backend did not answer, no policy loaded).
        case unavailable
    }

    /// The gate.
    public let gate: String
    /// The decision in every route's words (`Decision.Outcome`), as the audit record has it.
    public let outcome: Decision.Outcome
    /// What the request gets.
    public let response: Response
    /// The gate's `description:` in the policy, which a denied client may be told.
    public let description: String?
    /// Why, for the service's own log: names groups, users and files; never send it to the client.
    public let reasons: String
    /// The audit record's id (`capctl replay ID`), when the decision was recorded.
    public let decisionID: String?
    /// For a 401: the `WWW-Authenticate` challenge (RFC 7617), when the gate takes a Basic password.
    public let challenge: String?

    /// The HTTP status of a denial; 200 for a pass (the handler sets its own).
    public var statusCode: Int {
        switch response {
        case .pass: 200
        case .unauthorized: 401
        case .forbidden: 403
        case .unavailable: 503
        }
    }

    /// What a denied client is told: the outcome and the gate's description, never the reasons.
    public var message: String {
        "\(gate): \(outcome.rawValue)" + (description.map { " (\($0))" } ?? "")
    }

    /// A decision. For the adapters and tests; ``RouteGate`` makes them.
    public init(
        gate: String, outcome: Decision.Outcome, response: Response, description: String?, reasons: String,
        decisionID: String? = nil, challenge: String? = nil
    ) {
        self.gate = gate
        self.outcome = outcome
        self.response = response
        self.description = description
        self.reasons = reasons
        self.decisionID = decisionID
        self.challenge = challenge
    }
}
