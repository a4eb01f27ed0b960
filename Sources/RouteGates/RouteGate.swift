import Capabilities
public import CapabilityPolicy
import FeatureFlags
import LinuxBackends
public import LinuxPolicy
import Locking
import Tracing

/// A policy gate decided for each request of a web service: for the request's authenticated
/// user (by name, with the groups the host's user and group databases give them: /etc/group, or
/// the directory through sssd), never for the server process; flags targeted at that user and at
/// the headers it names. What Hummingbird's and Vapor's middleware (`HummingbirdGates`,
/// `VaporGates`) decide with; a service on another framework calls ``decide(_:)`` itself.
///
/// Fails closed: no policy loaded, no such gate, a directory that does not answer or a backend
/// that cannot decide is 503, never a pass. Each decision is recorded in the audit trail, when
/// one is given, as `capctl` and capctld record theirs (action `route`, the method and path).
///
/// ```swift
/// let store = PolicyStore(files: ["/etc/myservice/policy.yaml"], environment: .linux)
/// let deploy = RouteGate("deploy", policy: store, audit: AuditTrail(identifier: "myservice"))
/// let decision = await deploy.decide(RouteRequest(user: "alice", method: "POST", path: "/deploy"))
/// print(decision.response)  // pass, unauthorized (401), forbidden (403) or unavailable (503)
/// ```
public struct RouteGate: Sendable {
    /// The gate's name in the policy.
    public let gate: String
    /// Request headers read as flag attributes: header name (any case) to attribute name.
    public let headerAttributes: [String: String]
    /// The user an anonymous request is decided for (`nobody`, say); nil: an anonymous request
    /// gets 401 and is not decided.
    public let anonymousUser: String?
    /// The realm of the Basic challenge a 401 carries.
    public let realm: String

    private let source: Source
    private let audit: AuditTrail?
    private let users: RequestUsers
    private let reused: ReusedDecisions

    private enum Source: Sendable {
        case store(PolicyStore)
        case loaded(LoadedPolicy)

        var current: LoadedPolicy? {
            switch self {
            case .store(let store): store.current
            case .loaded(let policy): policy
            }
        }
    }

    /// A gate of the policy a store follows: an edit of the files counts from the next request;
    /// while they do not load, the last policy that did is used, and before any did, every
    /// request is 503.
    /// - Parameters:
    ///   - gate: The gate's name.
    ///   - policy: The store.
    ///   - audit: Where decisions are recorded; nil: not recorded.
    ///   - headerAttributes: Request headers read as flag attributes (header to attribute name).
    ///   - anonymousUser: Whom an anonymous request is decided for; nil: 401.
    ///   - realm: The Basic challenge's realm.
    ///   - userLifetime: How long a user's groups, as the databases gave them, are used before
    ///     they are asked again (1 s; zero: every request).
    public init(
        _ gate: String, policy: PolicyStore, audit: AuditTrail? = nil, headerAttributes: [String: String] = [:],
        anonymousUser: String? = nil, realm: String = "capctl", userLifetime: Duration = .seconds(1)
    ) {
        self.init(gate, .store(policy), audit, headerAttributes, anonymousUser, realm, userLifetime)
    }

    /// A gate of a policy loaded once.
    /// - Parameters:
    ///   - gate: The gate's name.
    ///   - policy: The policy.
    ///   - audit: Where decisions are recorded; nil: not recorded.
    ///   - headerAttributes: Request headers read as flag attributes (header to attribute name).
    ///   - anonymousUser: Whom an anonymous request is decided for; nil: 401.
    ///   - realm: The Basic challenge's realm.
    ///   - userLifetime: How long a user's groups, as the databases gave them, are used before
    ///     they are asked again (1 s; zero: every request).
    public init(
        _ gate: String, policy: LoadedPolicy, audit: AuditTrail? = nil, headerAttributes: [String: String] = [:],
        anonymousUser: String? = nil, realm: String = "capctl", userLifetime: Duration = .seconds(1)
    ) {
        self.init(gate, .loaded(policy), audit, headerAttributes, anonymousUser, realm, userLifetime)
    }

    private init(
        _ gate: String, _ source: Source, _ audit: AuditTrail?, _ headerAttributes: [String: String],
        _ anonymousUser: String?, _ realm: String, _ userLifetime: Duration
    ) {
        self.gate = gate
        users = RequestUsers(lifetime: userLifetime)
        reused = ReusedDecisions()
        self.source = source
        self.audit = audit
        self.headerAttributes = Dictionary(
            headerAttributes.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { _, last in last })
        self.anonymousUser = anonymousUser
        // A quote or a line break would end the header's parameter early.
        self.realm = Self.usableRealm(realm)
    }

    /// The Basic challenge of this gate's 401s (RFC 7617).
    public var challenge: String { Self.basicChallenge(realm: realm) }

    /// The `WWW-Authenticate` value of a Basic challenge for `realm` (RFC 7617), the realm without
    /// the quotes, backslashes and line breaks that would end the header's parameter early.
    public static func basicChallenge(realm: String) -> String {
        "Basic realm=\"\(usableRealm(realm))\", charset=\"UTF-8\""
    }

    private static func usableRealm(_ realm: String) -> String {
        String(realm.filter { $0 != "\"" && $0 != "\\" && !$0.isNewline })
    }

    /// Decides the gate for `request`: never asks anyone but the request itself (its Basic
    /// password answers a login the gate needs, once: a wrong one is 401 again, not a retry).
    /// With a tracer bootstrapped, in a span `route gate NAME` (a child of the request's), with
    /// the method, path, answer and the audit record's id; the gate's own span is its child.
    public func decide(_ request: RouteRequest) async -> RouteDecision {
        guard GateTracing.isTracing else { return await decideUntraced(request) }
        return await withSpan("route gate \(gate)") { span in
            let decision = await decideUntraced(request)
            span.updateAttributes { attributes in
                attributes["http.request.method"] = request.method
                attributes["url.path"] = request.path
                attributes["http.response.status_code"] = Int64(decision.statusCode)
                attributes["capctl.gate"] = gate
                attributes["capctl.outcome"] = decision.outcome.rawValue
                if let user = request.user { attributes["enduser.id"] = user }
                if let id = decision.decisionID { attributes["capctl.decision_id"] = id }
            }
            if decision.response == .unavailable { span.setStatus(SpanStatus(code: .error, message: decision.reasons)) }
            return decision
        }
    }

    private func decideUntraced(_ request: RouteRequest) async -> RouteDecision {
        guard let policy = source.current else {
            return refusal(.undecided, .unavailable, reasons: "no policy has loaded", description: nil)
        }
        let description = policy.policy.gates[gate]?.summary
        guard policy.policy.gates[gate] != nil else {
            return refusal(.undecided, .unavailable, reasons: "no gate \"\(gate)\" in the policy", description: nil)
        }
        guard let name = request.user ?? anonymousUser else {
            return refusal(
                .needsInteraction, .unauthorized, reasons: "the request is anonymous", description: description,
                challenge: challenge)
        }
        let subject: Subject
        let kept: RequestUsers.KeptUser
        switch users.subject(named: name) {
        case .found(let found, let user): (subject, kept) = (found, user)
        case .unknown(let reason): return refusal(.fails, .forbidden, reasons: reason, description: description)
        case .failed(let reason): return refusal(.undecided, .unavailable, reasons: reason, description: description)
        }
        let context = flagContext(for: request, user: name)
        let evaluation: GateEvaluation
        var askedForLogin = false
        // A decision that follows from the user's groups and the flags alone is reused while
        // neither has changed (ReusedDecisions); the user's entry is kept at most userLifetime.
        let flags = policy.flagsGeneration
        let reusable =
            users.lifetime > .zero && request.password == nil && reused.mayReuse(gate, of: policy, flags: flags)
        let key = ReusedDecisions.Key(user: name, context: context)
        var record: AuditRecord?
        do {
            let first: GateEvaluation
            if reusable, let entry = reused.entry(for: key, policy: policy, flags: flags, user: kept) {
                first = entry.evaluation
                record = entry.record?.renewed()
            } else {
                first = try await policy.evaluate(
                    gate: gate, context: context, subject: subject, subjectContext: { kept.flagContext(in: policy) })
                if reusable {
                    record = audit.map { _ in routeRecord(first, policy, subject) }
                    reused.keep(first, record: record, for: key, policy: policy, flags: flags, user: kept)
                }
            }
            if first.decisionOutcome == .needsInteraction, request.user != nil, let password = request.password {
                askedForLogin = true
                evaluation = try await PAMLogin.$subjectConversation.withValue(SingleAnswer(password)) {
                    try await policy.evaluateAllowingInteraction(gate: gate, context: context, subject: subject)
                }
            } else {
                evaluation = first
            }
        } catch {
            return refusal(.undecided, .unavailable, reasons: "\(error)", description: description)
        }
        let outcome = evaluation.decisionOutcome
        let response: RouteDecision.Response =
            switch outcome {
            case .holds: .pass
            // A login the request's password did not open asks again.
            case .fails: askedForLogin ? .unauthorized : .forbidden
            case .undecided: .unavailable
            case .needsInteraction, .dismissed: .unauthorized
            }
        var decisionID: String?
        if let audit {
            // A login asked with the request's password made a decision of its own.
            var made: AuditRecord
            if !askedForLogin, let record {
                made = record
            } else {
                made = routeRecord(evaluation, policy, subject)
            }
            made.details = [AuditRecord.Detail("method", request.method), AuditRecord.Detail("path", request.path)]
            audit.record(made)
            decisionID = made.decisionID
        }
        return RouteDecision(
            gate: gate, outcome: outcome, response: response, description: description,
            reasons: outcome == .holds ? "" : evaluation.decision(description: nil).reasons, decisionID: decisionID,
            challenge: response == .unauthorized ? challenge : nil)
    }

    /// The record of a route's decision, without the request's own details.
    private func routeRecord(_ evaluation: GateEvaluation, _ policy: LoadedPolicy, _ subject: Subject) -> AuditRecord {
        AuditRecord(action: "route", evaluation: evaluation, policy: policy.policy, subject: subject)
    }

    /// The request's user is the targeting key (a fractional rollout splits users, not hosts),
    /// then the headers named, then the service's own attributes.
    private func flagContext(for request: RouteRequest, user: String) -> FlagEvaluationContext {
        var attributes: [String: FlagValue] = [:]
        for (header, value) in request.headers {
            if let attribute = headerAttributes[header.lowercased()] { attributes[attribute] = .string(value) }
        }
        attributes.merge(request.attributes) { _, given in given }
        return FlagEvaluationContext(targetingKey: user, attributes: attributes)
    }

    /// A request refused before the gate was evaluated: nobody to decide for, or nothing to decide
    /// with. Not recorded: the record would name this process as the subject.
    private func refusal(
        _ outcome: Decision.Outcome, _ response: RouteDecision.Response, reasons: String, description: String?,
        challenge: String? = nil
    ) -> RouteDecision {
        RouteDecision(
            gate: gate, outcome: outcome, response: response, description: description, reasons: reasons,
            challenge: challenge)
    }
}
