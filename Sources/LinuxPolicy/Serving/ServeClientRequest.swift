public import CapabilityPolicy
public import ConfigurationFiles
public import LinuxBackends
public import ProcedureCore

/// Serves one client's request as a procedure: the policy's gate is its condition, decided for
/// the client (`ClientConnection.subject`), so `work` runs only when the gate holds for the
/// client, whatever this service itself may do. The client gets one reply line either way:
/// `ok: ` and what `work` returns, or `denied: ` and why (`error: ` when `work` throws).
/// Nothing is asked on the service's terminal: a PAM login the gate needs is asked of the
/// client, over the connection (`ClientPAMConversation`), before the reply.
///
/// ```swift
/// // In a root service: decide for the client at the other end of the socket, then do its work.
/// let listener = try ClientListener(path: "/run/myservice.sock")
/// let client = try listener.accept()
/// let serve = try ServeClientRequest(client, policy: policy, gate: "restart-unit") { client in
///     "restarted for \(client.subject)"
/// }
/// queue.addProcedure(serve)
/// ```
// Sendable by hand, as `Procedure`: it adds only Sendable `let`s.
public final class ServeClientRequest: AsyncProcedure<Void>, @unchecked Sendable {
    // Immutable after init; the base class synchronizes its own state.

    /// The client served.
    public let client: ClientConnection

    /// A request of `client` for `work`, gated by `gate` of `policy` decided for the client; the
    /// decision is recorded in `audit` when one is given.
    public init(
        _ client: ClientConnection, policy: LoadedPolicy, gate: String, name: String? = nil,
        audit: AuditTrail? = nil, work: @escaping @Sendable (ClientConnection) async throws -> String
    ) throws(ConfigurationError) {
        self.client = client
        // Capabilities are made for the client while its conversation is set: PAM asks the client.
        let built = PAMLogin.$subjectConversation.withValue(client.conversation) {
            Result { () throws(ConfigurationError) in try policy.condition(forGate: gate, subject: client.subject) }
        }
        let condition = try built.get()
        super.init(name: name ?? "serve \(gate) for \(client.subject)") {
            do {
                client.reply("ok: " + (try await work(client)))
            } catch {
                client.reply("error: \(error)")
                throw error
            }
        }
        addCondition(condition)
        let policyFiles = policy.policy.gates[gate].map { [$0.location.file] } ?? []
        addDidFinishBlockObserver { _, error in
            if let error { client.reply("denied: \(error)") }
            let explanation = (error as? ProcedureError)?.explanation
            let outcome: AuditRecord.Outcome =
                error == nil ? .authorized : (explanation?.outcome == .undecided ? .undecided : .denied)
            audit?.record(
                AuditRecord(
                    action: "serve", gate: gate, outcome: outcome, subject: client.subject,
                    reasons: error.map { "\($0)" } ?? "", policyFiles: policyFiles))
        }
    }
}
