public import CapabilityPolicy
import Glibc
public import LinuxBackends
import Plumbing
package import SystemPackage
public import Varlink

/// A client of capctld (or any ``DecisionService``): decisions on the system policy's gates for
/// the calling process, as the kernel identifies it to the service, with PAM's questions relayed
/// to a `PAMConversation` of the caller's when a gate needs a login.
///
/// Each method is one call on the service's socket; calls from several threads wait their turn.
/// ``authorize(gate:conversation:)`` and ``watch(_:_:)`` take a connection of their own.
///
/// ```swift
/// import DecisionService
///
/// let capctld = try DecisionClient()
/// let decision = try capctld.check("restart-unit")
/// if decision.outcome == .needsInteraction {
///     let result = try capctld.authorize(gate: "restart-unit", conversation: TerminalPAMConversation())
///     print(result)
/// }
/// ```
public final class DecisionClient: Sendable {
    /// Why a call got no decision: the service's error (`org.capctl.gates.NoSuchGate`, say), or
    /// a connection that failed.
    public typealias Failure = VarlinkClient.Failure

    /// Where capctld listens (`capctld.socket`).
    public static let systemSocketPath = "/run/capctl/capctld.sock"

    /// The service's socket.
    public let path: String
    /// How long a call waits for its reply (a login's questions wait for the person instead).
    public let timeout: Duration
    private let client: VarlinkClient

    /// Connects to the service at `path`; throws `.connection` when nothing listens there, or
    /// when what listens runs as neither root nor this process's user: its answers would be the
    /// word of someone who decides nothing for us.
    public init(path: String = DecisionClient.systemSocketPath, timeout: Duration = .seconds(10)) throws(Failure) {
        self.path = path
        self.timeout = timeout
        client = try Self.trusted(VarlinkClient(path: path, timeout: timeout), at: path)
    }

    /// A client of the connection `descriptor` to the service at `path`, which it owns from now
    /// on, trusted as ``init(path:timeout:)`` trusts one: capctl's front connects and sends a
    /// `Check` before capctl's own code is loaded, and hands it the connection
    /// (``checkReply(to:)``).
    package init(adopting connection: FileDescriptor, path: String, timeout: Duration = .seconds(10)) throws(Failure) {
        self.path = path
        self.timeout = timeout
        client = try Self.trusted(VarlinkClient(adopting: connection, path: path, timeout: timeout), at: path)
    }

    /// The decision of the `Check` of this process (no trace) made on the connection before this
    /// client adopted it, read as ``check(_:trace:)`` reads its reply.
    package func checkReply(to call: VarlinkClient.StartedCall) throws(Failure) -> Decision {
        try Self.decision(client.reply(to: call, decoding: Decision.decodedCheckReply))
    }

    /// `client`, when its service runs as root or as this process's user.
    private static func trusted(_ client: VarlinkClient, at path: String) throws(Failure) -> VarlinkClient {
        guard client.serviceUID == 0 || client.serviceUID == geteuid() else {
            throw .connection(
                "the service at \(path) runs as uid \(client.serviceUID), neither root nor you: not trusted")
        }
        return client
    }

    /// How `gate` stands for this process, asking nobody anything; as part of `trace` (by default
    /// the trace of the caller's current span, when a tracer is bootstrapped).
    public func check(_ gate: String, trace: TraceParent? = TraceParent.current()) throws(Failure) -> Decision {
        try Self.decision(
            client.call(
                GatesInterface.name + ".Check", [("gate", .string(gate))] + Self.traceParameter(trace),
                decoding: Decision.decodedCheckReply))
    }

    private static func traceParameter(_ trace: TraceParent?) -> [(String, VarlinkValue)] {
        trace.map { [("traceparent", .string($0.description))] } ?? []
    }

    /// How `gate` stands for another process: its pid, its start time (field 22 of
    /// `/proc/PID/stat`) and its uid, each checked by the service. Root callers only.
    public func check(
        _ gate: String, forProcess pid: Int32, startTime: UInt64, uid: UInt32,
        trace: TraceParent? = TraceParent.current()
    ) throws(Failure) -> Decision {
        try Self.decision(
            client.call(
                GatesInterface.name + ".CheckForSubject",
                [
                    ("gate", .string(gate)), ("pid", .int(Int64(pid))), ("startTime", .int(Int64(startTime))),
                    ("uid", .int(Int64(uid))),
                ] + Self.traceParameter(trace), decoding: Decision.decodedCheckReply))
    }

    /// How `gate` stands for a user, by name. Root callers only.
    public func check(_ gate: String, forUser user: String, trace: TraceParent? = TraceParent.current()) throws(Failure)
        -> Decision
    {
        try Self.decision(
            client.call(
                GatesInterface.name + ".CheckForSubject",
                [("gate", .string(gate)), ("user", .string(user))] + Self.traceParameter(trace),
                decoding: Decision.decodedCheckReply))
    }

    /// Every gate of the policy, decided for this process with one policy.
    public func status() throws(Failure) -> [Decision] {
        guard case .array(let values)? = try client.call(GatesInterface.name + ".Status")["decisions"] else {
            throw .connection("the reply has no decisions")
        }
        var decisions: [Decision] = []
        for value in values { decisions.append(try Self.decision(value)) }
        return decisions
    }

    /// The policy the service serves, and why its files do not load now (root only; others are
    /// refused with `org.varlink.service.PermissionDenied`).
    public func servedPolicy() throws(Failure) -> ServedPolicy {
        guard case .object(let members)? = try client.call(GatesInterface.name + ".ServedPolicy")["policy"] else {
            throw .connection("the reply has no policy")
        }
        let fields = Dictionary(members, uniquingKeysWith: { first, _ in first })
        var loadedAt: String?
        if case .string(let text)? = fields["loadedAt"] { loadedAt = text }
        func strings(_ key: String) -> [String] {
            guard case .array(let values)? = fields[key] else { return [] }
            return values.compactMap { if case .string(let text) = $0 { text } else { nil } }
        }
        var origins: [String: ServedPolicy.GateOrigin] = [:]
        if case .array(let gates)? = fields["gates"] {
            for case .object(let members) in gates {
                let gate = Dictionary(members, uniquingKeysWith: { first, _ in first })
                guard case .string(let name)? = gate["gate"], case .string(let location)? = gate["location"] else {
                    continue
                }
                var replaced: [String] = []
                if case .array(let values)? = gate["replaced"] {
                    replaced = values.compactMap { if case .string(let text) = $0 { text } else { nil } }
                }
                origins[name] = ServedPolicy.GateOrigin(location: location, replaced: replaced)
            }
        }
        return ServedPolicy(
            loadedAt: loadedAt, files: strings("files"), gateOrigins: origins, problems: strings("problems"))
    }

    /// The policy a service serves.
    public struct ServedPolicy: Sendable, Equatable {
        /// When it loaded (RFC 3339, UTC); nil when none ever did.
        public var loadedAt: String?
        /// Its files.
        public var files: [String]
        /// Where each of its gates is defined, by gate.
        public var gateOrigins: [String: GateOrigin]
        /// Why the files do not load now, each with its file:line:column; empty when they do.
        public var problems: [String]

        /// Where a gate is defined.
        public struct GateOrigin: Sendable, Equatable {
            /// `FILE:LINE:COLUMN` of the definition in force.
            public var location: String
            /// Earlier definitions it replaced, earliest first.
            public var replaced: [String]
        }

        /// What an operator is told when the files do not load, or nil when they do.
        public var staleWarning: String? {
            guard !problems.isEmpty else { return nil }
            let serving = loadedAt.map { "still serving the policy loaded at \($0)" } ?? "no policy in force"
            return (["capctld: the policy files do not load; \(serving):"] + problems.map { "  " + $0 })
                .joined(separator: "\n")
        }
    }

    /// Ends the logins the service keeps for this process's terminal and session (as `sudo -k`),
    /// or with `everywhere` every login it keeps for this user (as `sudo -K`); returns how many.
    public func forget(everywhere: Bool = false) throws(Failure) -> Int {
        let parameters: [(key: String, value: VarlinkValue)] = everywhere ? [("everywhere", .bool(true))] : []
        guard case .int(let removed)? = try client.call(GatesInterface.name + ".Forget", parameters)["removed"] else {
            throw .connection("the reply has no count")
        }
        return Int(removed)
    }

    /// Decides `gate` for this process, relaying the questions of any login it needs to
    /// `conversation` (on this thread: a terminal conversation may block on the person). The
    /// decision is `dismissed` when a question went unanswered.
    public func authorize(gate: String, conversation: some PAMConversation) throws(Failure) -> Decision {
        try authorize([("gate", .string(gate))], conversation: conversation).decision
    }

    /// Authorizes one capability of the policy for this process (a PAM login: the login it
    /// keeps, if the policy keeps one, counts for the gates that need it), relaying its questions
    /// to `conversation`. The decision, named by the capability, is `Decision.Outcome(status)`
    /// of its status.
    public func authorize(capability: String, conversation: some PAMConversation) throws(Failure) -> Decision {
        try authorize([("capability", .string(capability))], conversation: conversation).decision
    }

    /// As ``authorize(capability:conversation:)``, but a login the service keeps for this
    /// terminal and session is made good for its whole keep again without asking (as `sudo -v`):
    /// `extendedFor` is then how long; nil when none was kept and the capability was authorized.
    public func extend(capability: String, conversation: some PAMConversation) throws(Failure) -> (
        decision: Decision, extendedFor: Duration?
    ) {
        try authorize([("capability", .string(capability)), ("extend", .bool(true))], conversation: conversation)
    }

    /// Hands `gate`'s decision to `body` now and again each time it changes, until `body`
    /// returns false or the service ends the watch. Without `gate`, every gate's decision, each
    /// as it changes (one connection, however many gates: a user has few watches).
    public func watch(_ gate: String?, _ body: (Decision) -> Bool) throws(Failure) {
        // varlink ends a call with more only by closing its connection: a connection of its own.
        let watching = try Self.trusted(VarlinkClient(path: path, timeout: timeout), at: path)
        var failure: Failure?
        try watching.callMore(GatesInterface.name + ".Watch", gate.map { [("gate", .string($0))] } ?? []) {
            parameters in
            do throws(Failure) {
                return body(try Self.decision(parameters["decision"]))
            } catch {
                failure = error
                return false
            }
        }
        if let failure { throw failure }
    }

    // MARK: The relay

    /// `Authorize` with interaction: each question a reply that continues, each answer an
    /// `Answer` call on a second connection of this process (the service takes answers for a
    /// login only from the process it asks).
    private func authorize(_ parameters: [(key: String, value: VarlinkValue)], conversation: some PAMConversation)
        throws(Failure) -> (decision: Decision, extendedFor: Duration?)
    {
        let asking = try Self.trusted(VarlinkClient(path: path, timeout: timeout), at: path)
        let answering = try Self.trusted(VarlinkClient(path: path, timeout: timeout), at: path)
        var outcome: Result<Decision, Failure> = .failure(.connection("capctld ended the login without a decision"))
        var extendedFor: Duration?
        try asking.callMore(
            GatesInterface.name + ".Authorize", parameters + [("allowInteractiveAuthentication", .bool(true))]
        ) { reply in
            if let value = reply["decision"] {
                if case .int(let seconds)? = reply["extended"] { extendedFor = .seconds(seconds) }
                outcome =
                    Decision(varlink: value).map { .success($0) }
                    ?? .failure(.connection("the reply holds no decision"))
                return false
            }
            guard let question = reply["question"].flatMap(LoginQuestion.init) else {
                outcome = .failure(.connection("capctld sent a reply the login does not know"))
                return false
            }
            switch question.message.style {
            case .error, .info:
                conversation.show(question.message)
                return true
            case .secretPrompt, .visiblePrompt:
                let answer = Self.answerValue(conversation.answer(question.message))
                do throws(Failure) {
                    _ = try answering.call(
                        GatesInterface.name + ".Answer", [("login", .string(question.login)), ("answer", answer)])
                    return true
                } catch {
                    outcome = .failure(error)
                    return false
                }
            }
        }
        return (try outcome.get(), extendedFor)
    }

    /// An answer as `Answer` sends it: null when the person declined (the login is dismissed).
    private static func answerValue(_ answer: PAMAnswer) -> VarlinkValue {
        switch answer {
        case .secret(let secret): secret.withUnsafeBytes { .string(String(decoding: $0, as: UTF8.self)) }
        case .text(let text): .string(text)
        case .cancel, .unanswerable: .null
        }
    }

    /// The decision of a `Check` reply, read straight from its bytes or from its parameters.
    private static func decision(_ read: VarlinkClient.Read<Decision>) throws(Failure) -> Decision {
        switch read {
        case .decoded(let decision): decision
        case .parameters(let parameters): try decision(parameters["decision"])
        }
    }

    private static func decision(_ value: VarlinkValue?) throws(Failure) -> Decision {
        guard let value, let decision = Decision(varlink: value) else {
            throw .connection("the reply holds no decision")
        }
        return decision
    }
}
