import Capabilities
public import CapabilityPolicy
public import ConfigurationFiles
public import LinuxBackends
import Locking
public import ProcedureCore

/// Serves one client's request as a procedure: the policy's gate is its condition, decided for
/// the client (`ClientConnection.subject`), so `work` runs only when the gate holds for the
/// client, whatever this service itself may do. The client gets one reply line either way:
/// `ok: ` and what `work` returns, `error: ` when `work` throws, or a denial: by default
/// `denied: OUTCOME` and the gate's description, the full reasons only for a client running as
/// root (they name the groups, PAM services and users the gate is made of; the audit record
/// has them). Nothing is asked on the service's terminal: a PAM login the gate needs is asked of
/// the client, over the connection (`ClientPAMConversation`), before the reply.
///
/// ```swift
/// // In a root service: decide for the client at the other end of the socket, then do its work.
/// let listener = try ClientListener(path: "/run/myservice.sock")
/// let client = try listener.accept()
/// let audit = AuditTrail(identifier: "myservice")
/// let serve = try ServeClientRequest(
///     client, policy: policy, gate: "restart-unit", audit: audit,
///     details: [AuditRecord.Detail("unit", "nginx.service")]
/// ) { client in
///     "restarted for \(client.subject)"
/// }
/// queue.addProcedure(serve)
/// ```
// Sendable by hand, as `Procedure`: it adds only Sendable `let`s.
public final class ServeClientRequest: AsyncProcedure<Void>, @unchecked Sendable {
    // Immutable after init; the base class synchronizes its own state.

    /// The client served.
    public let client: ClientConnection

    /// A request the gate refused, for the service to word its reply.
    public struct Denial: Sendable {
        /// The gate.
        public let gate: String
        /// `fails`, `undecided` or `dismissed` (a login the client did not answer).
        public let outcome: Decision.Outcome
        /// The gate's `description:` in the policy.
        public let description: String?
        /// Every part of the gate and why: what the audit record holds; tell it to root only.
        public let explanation: ConditionExplanation?
        /// The client.
        public let client: ClientConnection
    }

    /// The reply a denied client gets unless the service words its own: `denied: OUTCOME`, the
    /// gate's description in parentheses, and for a client running as root the reasons.
    public static let standardDenial: @Sendable (Denial) -> String = { denial in
        var line = "denied: " + denial.outcome.rawValue
        if let description = denial.description { line += " (\(description))" }
        if denial.client.subject.uid == 0, let explanation = denial.explanation {
            line += ": " + explanation.failedLeaves.map { "\($0.condition): \($0.reason)" }.joined(separator: "; ")
        }
        return line
    }

    /// A request of `client` for `work`, gated by `gate` of `policy` decided for the client.
    /// - Parameters:
    ///   - client: The client asking, as the listener identified it.
    ///   - policy: The policy in force for this request.
    ///   - gate: The gate the request needs.
    ///   - name: The procedure's name (default: `serve GATE for SUBJECT`).
    ///   - audit: Where the decision is recorded (with the reasons, the logins that opened the
    ///     gate and `details`); nil: not recorded.
    ///   - details: What the request asked for, added to the audit record.
    ///   - denial: The reply line a denied client gets (one line: line breaks become spaces).
    ///   - work: What the request does once the gate holds; its value follows `ok: `.
    public init(
        _ client: ClientConnection, policy: LoadedPolicy, gate: String, name: String? = nil,
        audit: AuditTrail? = nil, details: [AuditRecord.Detail] = [],
        denial: @escaping @Sendable (Denial) -> String = ServeClientRequest.standardDenial,
        work: @escaping @Sendable (ClientConnection) async throws -> String
    ) throws(ConfigurationError) {
        self.client = client
        // Capabilities are made for the client while its conversation is set: PAM asks the client.
        let built = PAMLogin.$subjectConversation.withValue(client.conversation) {
            Result { () throws(ConfigurationError) in try policy.condition(forGate: gate, subject: client.subject) }
        }
        let condition = try built.get()
        // Whether the work ran (and so replied itself): otherwise the client is told it was denied.
        let ran = Lock(false)
        super.init(name: name ?? "serve \(gate) for \(client.subject)") {
            ran.withLock { $0 = true }
            do {
                client.reply("ok: " + (try await work(client)))
            } catch {
                client.reply("error: \(error)")
                throw error
            }
        }
        addCondition(condition)
        let summary = policy.policy.gates[gate]?.summary
        addDidFinishBlockObserver { procedure, error in
            let explanation =
                (error as? ProcedureError)?.explanation ?? procedure.conditionExplanation
                ?? ConditionExplanation(
                    condition: "gate \(gate)", outcome: .undecided, reason: error.map { "\($0)" } ?? "")
            let refused = error != nil && !ran.withLock { $0 }
            // The work's own failure is not the gate's: the gate held.
            let verdict: GateEvaluation.Outcome =
                error == nil || !refused ? .satisfied : explanation.outcome == .undecided ? .undecided : .failed
            let evaluation = GateEvaluation(gate: gate, outcome: verdict, explanation: explanation)
            if refused {
                let line = denial(
                    Denial(
                        gate: gate, outcome: evaluation.decisionOutcome, description: summary,
                        explanation: explanation, client: client))
                client.reply(String(line.map { $0 == "\n" || $0 == "\r" ? " " : $0 }))
            }
            var record = AuditRecord(
                action: "serve", evaluation: evaluation, policy: policy.policy, subject: client.subject)
            if let error, !refused { record.reasons = "the work failed: \(error)" }
            record.details = details
            audit?.record(record)
        }
    }
}
