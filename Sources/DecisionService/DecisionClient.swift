import Glibc
public import LinuxBackends
import Plumbing
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

    /// `client`, when its service runs as root or as this process's user.
    private static func trusted(_ client: VarlinkClient, at path: String) throws(Failure) -> VarlinkClient {
        guard client.serviceUID == 0 || client.serviceUID == geteuid() else {
            throw .connection(
                "the service at \(path) runs as uid \(client.serviceUID), neither root nor you: not trusted")
        }
        return client
    }

    /// How `gate` stands for this process, asking nobody anything.
    public func check(_ gate: String) throws(Failure) -> GateDecision {
        try Self.decision(client.call(GatesInterface.name + ".Check", [("gate", .string(gate))])["decision"])
    }

    /// How `gate` stands for another process: its pid, its start time (field 22 of
    /// `/proc/PID/stat`) and its uid, each checked by the service. Root callers only.
    public func check(_ gate: String, forProcess pid: Int32, startTime: UInt64, uid: UInt32) throws(Failure)
        -> GateDecision
    {
        try Self.decision(
            client.call(
                GatesInterface.name + ".CheckForSubject",
                [
                    ("gate", .string(gate)), ("pid", .int(Int64(pid))), ("startTime", .int(Int64(startTime))),
                    ("uid", .int(Int64(uid))),
                ])["decision"])
    }

    /// How `gate` stands for a user, by name. Root callers only.
    public func check(_ gate: String, forUser user: String) throws(Failure) -> GateDecision {
        try Self.decision(
            client.call(GatesInterface.name + ".CheckForSubject", [("gate", .string(gate)), ("user", .string(user))])[
                "decision"])
    }

    /// Every gate of the policy, decided for this process with one policy.
    public func status() throws(Failure) -> [GateDecision] {
        guard case .array(let values)? = try client.call(GatesInterface.name + ".Status")["decisions"] else {
            throw .connection("the reply has no decisions")
        }
        var decisions: [GateDecision] = []
        for value in values { decisions.append(try Self.decision(value)) }
        return decisions
    }

    /// Ends every login the service keeps for this user (as `sudo -K`); returns how many.
    public func forget() throws(Failure) -> Int {
        guard case .int(let removed)? = try client.call(GatesInterface.name + ".Forget")["removed"] else {
            throw .connection("the reply has no count")
        }
        return Int(removed)
    }

    /// Decides `gate` for this process, relaying the questions of any login it needs to
    /// `conversation` (on this thread: a terminal conversation may block on the person).
    public func authorize(gate: String, conversation: some PAMConversation) throws(Failure) -> Authorization {
        try authorize([("gate", .string(gate))], conversation: conversation)
    }

    /// Authorizes one capability of the policy for this process (a PAM login: the login it
    /// keeps, if the policy keeps one, counts for the gates that need it), relaying its questions
    /// to `conversation`.
    public func authorize(capability: String, conversation: some PAMConversation) throws(Failure) -> Authorization {
        try authorize([("capability", .string(capability))], conversation: conversation)
    }

    /// Hands `gate`'s decision to `body` now and again each time it changes, until `body`
    /// returns false or the service ends the watch. Without `gate`, every gate's decision, each
    /// as it changes (one connection, however many gates: a user has few watches).
    public func watch(_ gate: String?, _ body: (GateDecision) -> Bool) throws(Failure) {
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

    private func authorize(_ parameters: [(key: String, value: VarlinkValue)], conversation: some PAMConversation)
        throws(Failure) -> Authorization
    {
        let relay = try Self.trusted(VarlinkClient(path: path, timeout: timeout), at: path).callUpgrading(
            GatesInterface.name + ".Authorize", parameters
        ).connection
        defer { relay.close() }
        // The service waits ClientPAMConversation.answerTimeout for each answer; a PAM module may
        // take a while between questions (pam_faildelay), so a line may take about as long.
        let lineTimeout = Duration.seconds(ClientPAMConversation.answerTimeout) + timeout
        while true {
            guard case .line(let bytes) = relay.readLine(limit: 4096, until: .now + lineTimeout) else {
                throw .connection("capctld ended the login without an answer")
            }
            let line = String(decoding: bytes, as: UTF8.self)
            if let rest = line.removingPrefix("ok: ") { return .authorized(rest) }
            if let rest = line.removingPrefix("denied: ") {
                return rest == "dismissed" ? .dismissed : .denied(rest)
            }
            if let text = line.removingPrefix("pam-error: ") {
                conversation.show(PAMMessage(style: .error, text: text))
            } else if let text = line.removingPrefix("pam-info: ") {
                conversation.show(PAMMessage(style: .info, text: text))
            } else if let text = line.removingPrefix("pam-secret: ") ?? line.removingPrefix("pam-prompt: ") {
                let secret = line.hasPrefix("pam-secret: ")
                let answer = conversation.answer(PAMMessage(style: secret ? .secretPrompt : .visiblePrompt, text: text))
                guard Self.send(answer, on: relay) else {
                    // Closing unanswered dismisses the login on the service's side.
                    return .dismissed
                }
            } else {
                throw .connection("capctld sent a line the relay does not know")
            }
        }
    }

    /// Sends one answer as a line; false when there is none to send (or it cannot be one line).
    private static func send(_ answer: PAMAnswer, on relay: LineConnection) -> Bool {
        switch answer {
        case .secret(let secret):
            return secret.withUnsafeBytes { bytes in
                guard !bytes.contains(UInt8(ascii: "\n")) else { return false }
                // One write of the secret and its line feed, from memory zeroed afterwards.
                let line = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count + 1, alignment: 1)
                defer {
                    explicit_bzero(line.baseAddress!, line.count)
                    line.deallocate()
                }
                line.copyMemory(from: bytes)
                line[bytes.count] = UInt8(ascii: "\n")
                return relay.write(UnsafeRawBufferPointer(line))
            }
        case .text(let text):
            guard !text.contains("\n") else { return false }
            return relay.writeLine(text)
        case .cancel, .unanswerable:
            return false
        }
    }

    private static func decision(_ value: VarlinkValue?) throws(Failure) -> GateDecision {
        guard let value, let decision = GateDecision(value) else { throw .connection("the reply holds no decision") }
        return decision
    }
}

extension DecisionClient {
    /// How an authorization through the service ended.
    public enum Authorization: Sendable, Equatable {
        /// The gate holds, or the capability is authorized: the service's words.
        case authorized(String)
        /// It does not: `failed`, `undecided` or `needsInteraction` (the login needed could not
        /// be asked for).
        case denied(String)
        /// A question went unanswered: the person dismissed it.
        case dismissed
    }
}

extension String {
    fileprivate func removingPrefix(_ prefix: String) -> String? {
        hasPrefix(prefix) ? String(dropFirst(prefix.count)) : nil
    }
}
