import Capabilities
public import CapabilityPolicy
import ConfigurationFiles
public import LinuxBackends
public import LinuxPolicy
import Locking
import Plumbing
import ProcedureCore
public import ServiceLifecycle
import SystemPackage
import Tracing
import Varlink

/// Decides the system policy's gates for the clients of a socket, in varlink (`org.capctl.gates`):
/// what capctld is, as a type any root service can run for its own socket.
///
/// Every client is the subject the kernel names for its connection (`ClientConnection.subject`);
/// what a call says about who is asking is never used, and only root may ask about someone else.
/// A client is told the outcome, the gate's description and what it can do about it; the full
/// explanation goes to the audit trail, and to root callers. ``run()`` lets clients between calls
/// wait together, holding no thread, and serves each call on a thread of a small pool, another
/// started when all wait on their clients; ``serve(_:)`` serves one client on the calling thread.
/// Either way a silent client holds up only itself.
///
/// ```swift
/// import DecisionService
///
/// let store = PolicyStore(searchPath: PolicySearchPath(directories: PolicySearchPath.systemRoots), environment: .linux)
/// let service = DecisionService(policy: store, audit: AuditTrail(identifier: "capctld"))
/// let listener = try ClientListener(path: "/run/capctl/capctld.sock")
/// try listener.run { client in service.serve(client) }
/// ```
public final class DecisionService: Sendable {
    /// The policy decided: the system's layers, kept current.
    public let policy: PolicyStore
    /// Where every decision is recorded.
    public let audit: AuditTrail
    /// The logins kept for clients, which `Forget` ends: the records the policy's capabilities
    /// keep them in (`PolicyOptions.keptLoginRecords`).
    public let keptLogins: KeptLoginRecords?
    /// The socket ``run()`` serves, if the service was made with one.
    public let listener: ClientListener?
    private let info: VarlinkServiceInfo
    private let limits: VarlinkConnection.Limits
    private let metricsExposition: (@Sendable () -> String)?
    private let systemdService: SystemdServiceControl?
    /// Logins being asked per user: each is a PAM transaction, so one user cannot try passwords
    /// on many connections at once.
    private let conversations = PerUserCounts()
    /// Watches open per user.
    private let openWatches = PerUserCounts()
    /// The logins being asked through `Authorize`, which `Answer` answers.
    private let pendingLogins = PendingLogins()
    /// Signalled by ``shutdown()``: connections end after their call in progress.
    private let stopping = Wakeup()
    /// The watches being served, woken at ``shutdown()`` to end.
    private let watches = Lock<[ObjectIdentifier: EventSignal]>([:])

    /// How many calls ``run()`` serves at once, at most: one thread each. Clients between calls
    /// hold none, and a call that waits (a login asked, a watch) holds only its own.
    public static let servingThreads = 256
    /// How many logins one user may be answering at once.
    public static let conversationsPerUser = 3
    /// How many logins all users together may be answering at once: each holds a serving thread
    /// while its person answers, and these and ``watches`` leave ``servingThreads`` a quarter for
    /// every other call.
    public static let conversations = 96
    /// How many watches one user may have open at once.
    public static let watchesPerUser = 4
    /// How many watches all users together may have open at once (each holds a serving thread).
    public static let watches = 96
    /// How long ``run()`` waits by default for the clients being served once it stops accepting:
    /// a call in progress ends long before, a login whose person has gone silent is cut off (it
    /// could hold the stop for the PAM answer's 120 s). Below systemd's default stop timeout (90 s)
    /// and below capctld.service's `TimeoutStopSec=30s`, so the service manager never kills a
    /// capctld that is still writing its last records.
    public static let defaultDrainTimeout = Duration.seconds(20)
    /// How long ``run()`` waits for the clients being served once it stops accepting.
    public let drainTimeout: Duration
    /// How long a client's `Check` of a gate that reads only its user, groups and flags is
    /// answered again on the same connection by default, while the policy and flags are
    /// unchanged: as long as a route gate keeps a user's groups (`RouteGate`'s `userLifetime`).
    public static let defaultReuseLifetime = Duration.seconds(1)
    /// How long a client's `Check` is answered again on its connection (zero: never).
    public let reuseLifetime: Duration
    /// Users besides root who may ask for another subject.
    private let subjectAskers: Set<UInt32>

    /// A service deciding the gates of `policy`, recording each decision in `audit`.
    /// - Parameters:
    ///   - policy: The policy decided: the system's layers, kept current.
    ///   - audit: Where every decision is recorded.
    ///   - keptLogins: The records the policy keeps logins in (nil: none kept), for `Forget`.
    ///   - listener: The socket ``run()`` serves (nil: call ``serve(_:)`` from a listener of yours).
    ///   - version: The service's version, as `org.varlink.service.GetInfo` tells it.
    ///   - idleTimeout: How long a client has to send each call.
    ///   - drainTimeout: How long ``run()`` lets the clients being served finish once it stops
    ///     accepting; those still served then are cut off.
    ///   - reuseLifetime: How long a client's `Check` of a gate that reads only the client's user,
    ///     groups and flags (none reading the clock) is answered again on the same connection, the
    ///     answer recorded anew each time, while the policy and its flags are unchanged; zero:
    ///     every call is decided. The user and group databases' names are read again at least
    ///     this often.
    ///   - metricsExposition: The metrics as text, for root's `Metrics` call (capctld gives
    ///     Prometheus's exposition of its swift-metrics backend); nil: `Metrics` is refused.
    ///   - systemdService: What `io.systemd.service`'s `Reload` and `SetLogLevel` do; nil: the
    ///     interface is not served.
    ///   - subjectAskers: Users besides root who may ask `CheckForSubject` (capctld: polkitd's
    ///     user, for the polkit bridge); they are told the outcome, never the explanation.
    public init(
        policy: PolicyStore, audit: AuditTrail, keptLogins: KeptLoginRecords? = nil, listener: ClientListener? = nil,
        version: String = "1", idleTimeout: Duration = .seconds(10), drainTimeout: Duration = defaultDrainTimeout,
        reuseLifetime: Duration = defaultReuseLifetime,
        metricsExposition: (@Sendable () -> String)? = nil, systemdService: SystemdServiceControl? = nil,
        subjectAskers: Set<UInt32> = []
    ) {
        self.systemdService = systemdService
        self.subjectAskers = subjectAskers
        self.policy = policy
        self.audit = audit
        self.keptLogins = keptLogins
        self.listener = listener
        self.metricsExposition = metricsExposition
        self.drainTimeout = drainTimeout
        self.reuseLifetime = reuseLifetime
        info = VarlinkServiceInfo(
            vendor: "capctl", product: "capctld", version: version,
            url: "https://github.com/capctl/swift-capabilities/blob/main/Docs/Decisions.md")
        limits = VarlinkConnection.Limits(idleTimeout: idleTimeout)
    }

    /// Serves `client`'s calls on the calling thread (one of the listener's client threads) until
    /// it closes the connection, breaks the protocol, stays silent past the idle timeout, or its
    /// `Authorize` ends.
    public func serve(_ client: ClientConnection) {
        _ = varlinkConnection(for: client).serve()
    }

    /// `client`'s calls as ``run()`` serves them: its connection waits with the others between
    /// calls, holding no thread.
    private func waitingConnection(for client: ClientConnection) -> WaitingConnections.Connection {
        let connection = varlinkConnection(for: client)
        let line = client.lineConnection
        return WaitingConnections.Connection(
            descriptor: line.descriptor, serve: { connection.serveArrived() }, isAwaited: { connection.isAwaited },
            end: { line.close() })
    }

    private func varlinkConnection(for client: ClientConnection) -> VarlinkConnection {
        let (logins, uid, pid) = (pendingLogins, client.subject.uid, client.peerProcessID)
        return VarlinkConnection(
            connection: client.lineConnection, info: info,
            interfaces: [interface(for: client)]
                + (systemdService.map { [SystemdServiceInterface.interface($0, for: client)] } ?? []), limits: limits,
            stopping: stopping, awaited: { logins.asks(uid: uid, pid: pid) })
    }

    /// Ends the clients' connections as the service stops: each after the call it is in (a login
    /// being asked finishes first), every watch at once. ``run()`` calls it at graceful shutdown
    /// or cancellation; a service serving a listener of its own calls it when it stops accepting.
    public func shutdown() {
        stopping.signal()
        for watch in watches.withLock({ Array($0.values) }) { watch.signal() }
    }

    /// What a client past the listener's limits is sent (`ClientListener`'s `refusal`): a varlink
    /// error reply, `org.capctl.gates.Busy`, which a client reads as the answer to its first call.
    public static let busyRefusal: @Sendable (String) -> [UInt8] = { reason in busy(reason).replyMessage }

    /// `org.capctl.gates.Busy`: past a limit of the caller's user, or of everyone.
    private static func busy(_ reason: String) -> VarlinkError {
        VarlinkError("org.capctl.gates.Busy", [("reason", .string(reason))])
    }

    // MARK: The interface

    private func interface(for client: ClientConnection) -> VarlinkInterface {
        let reused = ReusedCheck(lifetime: reuseLifetime)
        return VarlinkInterface(
            name: GatesInterface.name, description: GatesInterface.description,
            methods: [
                "Check": { [self] call, replies throws(VarlinkError) in
                    try call.allowOnly(["gate", "traceparent"])
                    let gate = try call.string("gate")
                    let trace = try Self.traceParent(call)
                    let loaded = try currentPolicy(for: client.subject)
                    replies.reply(
                        encoded: try check(gate, in: loaded, for: client.subject, trace: trace, reusing: reused))
                },
                "CheckForSubject": { [self] call, replies throws(VarlinkError) in
                    try call.allowOnly(["gate", "pid", "startTime", "uid", "user", "traceparent"])
                    guard client.subject.uid == 0 || subjectAskers.contains(client.subject.uid) else {
                        throw .permissionDenied
                    }
                    let gate = try call.string("gate")
                    let subject = try Self.subject(named: call)
                    let decision = try decide(
                        gate, in: try currentPolicy(for: client.subject), for: subject, asker: client.subject,
                        action: "check-for-subject", trace: try Self.traceParent(call))
                    replies.reply([("decision", decision.varlinkValue)])
                },
                "Status": { [self] call, replies throws(VarlinkError) in
                    try call.allowOnly([])
                    // One policy for the whole reply, even if a reload lands meanwhile.
                    let loaded = try currentPolicy(for: client.subject)
                    var decisions: [VarlinkValue] = []
                    var evaluations: [GateEvaluation] = []
                    for gate in loaded.policy.gates.keys.sorted() {
                        let evaluation = try evaluate(gate, in: loaded, for: client.subject, action: "status")
                        evaluations.append(evaluation)
                        decisions.append(told(evaluation, in: loaded, to: client.subject).varlinkValue)
                    }
                    // One record for the call, not one per gate: a user looping Status must not
                    // fill the journal's rate limit with records that crowd out others'.
                    recordStatus(evaluations, subject: client.subject, in: loaded)
                    var reply: [(String, VarlinkValue)] = [("decisions", .array(decisions))]
                    if client.subject.uid == 0 {
                        reply.append(("undeliveredAuditRecords", .int(Int64(audit.failedWrites))))
                        reply.append(("policy", servedPolicy))
                    }
                    replies.reply(reply)
                },
                "ServedPolicy": { [self] call, replies throws(VarlinkError) in
                    try call.allowOnly([])
                    guard client.subject.uid == 0 else { throw .permissionDenied }
                    replies.reply([("policy", servedPolicy)])
                },
                "Authorize": { [self] call, replies throws(VarlinkError) in
                    try call.allowOnly(["gate", "capability", "allowInteractiveAuthentication", "extend"])
                    let gate = try call.optionalString("gate")
                    let capability = try call.optionalString("capability")
                    guard (gate == nil) != (capability == nil) else { throw .invalidParameter("gate") }
                    let extend = try call.optionalBool("extend") ?? false
                    if extend, capability == nil { throw .invalidParameter("extend") }
                    let interactive = try call.optionalBool("allowInteractiveAuthentication") ?? false
                    // Questions are replies that continue: asking needs a call that takes more.
                    if interactive, !call.more { throw .expectedMore }
                    let loaded = try currentPolicy(for: client.subject)
                    if let gate, loaded.policy.gates[gate] == nil { throw Self.noSuchGate(gate) }
                    if let capability, loaded.policy.capabilities[capability] == nil {
                        throw VarlinkError("org.capctl.gates.NoSuchCapability", [("capability", .string(capability))])
                    }
                    let uid = client.subject.uid
                    switch conversations.begin(uid: uid, limit: Self.conversationsPerUser, total: Self.conversations) {
                    case .begun: break
                    case .userAtLimit:
                        throw Self.busy("uid \(uid) is answering \(Self.conversationsPerUser) logins already")
                    case .allAtLimit: throw Self.busy("\(Self.conversations) logins are being answered already")
                    }
                    defer { conversations.end(uid: uid) }
                    let (decision, extended) = try authorize(
                        gate.map(Authorizing.gate) ?? .capability(capability!, extend: extend), in: loaded,
                        for: client, replies: interactive ? replies : nil)
                    replies.reply(
                        [("decision", decision.varlinkValue)] + (extended.map { [("extended", .int($0))] } ?? []))
                },
                "Answer": { [self] call, replies throws(VarlinkError) in
                    try call.allowOnly(["login", "answer"])
                    let login = try call.string("login")
                    let answer = try call.optionalString("answer")
                    guard
                        pendingLogins.answer(answer, to: login, uid: client.subject.uid, pid: client.peerProcessID)
                    else {
                        throw VarlinkError("org.capctl.gates.NoSuchQuestion", [("login", .string(login))])
                    }
                    replies.reply([])
                },
                "Metrics": { [self] call, replies throws(VarlinkError) in
                    try call.allowOnly([])
                    guard client.subject.uid == 0 else { throw .permissionDenied }
                    guard let metricsExposition else { throw VarlinkError("org.capctl.gates.MetricsUnavailable") }
                    replies.reply([("text", .string(metricsExposition()))])
                },
                "Forget": { [self] call, replies throws(VarlinkError) in
                    try call.allowOnly(["everywhere"])
                    let everywhere = try call.optionalBool("everywhere") ?? false
                    let subject = client.subject
                    let removed =
                        everywhere
                        ? keptLogins?.forget(uid: subject.uid) ?? 0
                        : subject.keepScope.map {
                            keptLogins?.forget(uid: subject.uid, scope: KeptLoginRecords.clientScope($0)) ?? 0
                        } ?? 0
                    write(
                        AuditRecord(
                            action: "forget", gate: "", outcome: .holds, subject: client.subject,
                            reasons: "\(removed) kept login(s) ended"))
                    replies.reply([("removed", .int(Int64(removed)))])
                },
                "Watch": { [self] call, replies throws(VarlinkError) in
                    try call.allowOnly(["gate"])
                    // No gate: every gate of the policy in force.
                    let gate = try call.optionalString("gate")
                    guard call.more else { throw .expectedMore }
                    // A watch follows every capability of the policy for its client: bounded per
                    // user, so watches cannot be multiplied into a flood of status reads.
                    let uid = client.subject.uid
                    switch openWatches.begin(uid: uid, limit: Self.watchesPerUser, total: Self.watches) {
                    case .begun: break
                    case .userAtLimit: throw Self.busy("uid \(uid) has \(Self.watchesPerUser) watches open already")
                    case .allAtLimit: throw Self.busy("\(Self.watches) watches are open already")
                    }
                    defer { openWatches.end(uid: uid) }
                    try watch(gate, for: client, replies: replies)
                },
            ])
    }

    // MARK: Deciding

    /// The policy in force, or PolicyUnavailable: with the first error's file:line:column for
    /// root, and without it for anyone else (where the policy's files are and what they say is
    /// the administrator's, as the explanation of a decision is).
    private func currentPolicy(for asker: Subject) throws(VarlinkError) -> LoadedPolicy {
        guard let loaded = policy.current else {
            let reason =
                asker.uid == 0
                ? policy.problems.first?.description ?? "no policy has loaded"
                : "the system's policy does not load; its administrator can see why (capctl validate, capctld's log)"
            throw VarlinkError("org.capctl.gates.PolicyUnavailable", [("reason", .string(reason))])
        }
        return loaded
    }

    /// The policy served and why the files do not load now: root's view of a reload that failed.
    private var servedPolicy: VarlinkValue {
        let current = policy.current
        return .object([
            ("loadedAt", current.flatMap { WallClock.rfc3339($0.loadedAt) }.map(VarlinkValue.string) ?? .null),
            ("files", .array((current?.policy.files ?? []).map(VarlinkValue.string))),
            ("gates", .array(Self.gateOrigins(current?.policy))),
            ("problems", .array(policy.problems.map { .string($0.description) })),
        ])
    }

    /// Where each gate of `policy` is defined, and what it replaced: `capctl status --origin`.
    private static func gateOrigins(_ policy: Policy?) -> [VarlinkValue] {
        guard let policy else { return [] }
        return policy.gates.keys.sorted().map { name in
            .object([
                ("gate", .string(name)),
                ("location", .string(policy.gates[name]!.location.description)),
                (
                    "replaced",
                    .array(
                        policy.overrides.filter { $0.kind == "gate" && $0.name == name }.map {
                            .string($0.replaced.description)
                        })
                ),
            ])
        }
    }

    private static func noSuchGate(_ gate: String) -> VarlinkError {
        VarlinkError("org.capctl.gates.NoSuchGate", [("gate", .string(gate))])
    }

    /// Decides `gate` for `subject` without asking anyone, records it, and returns what `asker`
    /// may be told.
    private func decide(
        _ gate: String, in loaded: LoadedPolicy, for subject: Subject, asker: Subject, action: String,
        trace: TraceParent? = nil
    ) throws(VarlinkError) -> Decision {
        let evaluation = try evaluate(gate, in: loaded, for: subject, action: action, trace: trace)
        var record = AuditRecord(action: action, evaluation: evaluation, policy: loaded.policy, subject: subject)
        record.traceID = trace?.traceID
        write(record)
        return told(evaluation, in: loaded, to: asker)
    }

    /// A client's `Check` of `gate`, its reply encoded: decided and recorded as
    /// ``decide(_:in:for:asker:action:trace:)`` does, or the connection's last answer for it given
    /// again and recorded anew, where nothing it followed from can have changed (``ReusedCheck``).
    /// A traced call is decided, so its spans are made.
    private func check(
        _ gate: String, in loaded: LoadedPolicy, for subject: Subject, trace: TraceParent?,
        reusing reused: ReusedCheck
    ) throws(VarlinkError) -> [UInt8] {
        let now = ContinuousClock.now
        // Read before deciding: a decision is current while it has not moved.
        let flags = loaded.flagsGeneration
        let found =
            trace != nil && GateTracing.isTracing ? .decide : reused.find(gate, policy: loaded, flags: flags, at: now)
        if case .reuse(let answer) = found {
            write(outcome: answer.outcome, subject: subject) {
                var record = answer.record.renewed()
                record.traceID = trace?.traceID
                return record
            }
            DecisionMetrics.time(action: "check", ContinuousClock.now - now)
            DecisionMetrics.count(action: "check", outcome: answer.outcome)
            return answer.reply
        }
        // None while a tracer is bootstrapped (each check has spans of its own): prepare says so.
        let prepared = reused.prepared(gate, policy: loaded, subject: subject)
        let evaluation = try evaluate(
            gate, in: loaded, for: subject, action: "check", trace: trace, prepared: prepared)
        let record = { AuditRecord(action: "check", evaluation: evaluation, policy: loaded.policy, subject: subject) }
        // Made only when written (or kept): past its user's share a decision is counted, not made a record.
        write(outcome: evaluation.decisionOutcome, subject: subject) {
            var made = record()
            made.traceID = trace?.traceID
            return made
        }
        let reply = told(evaluation, in: loaded, to: subject).checkReply
        if case .decideAndKeep = found {
            reused.keep(
                ReusedCheck.Answer(outcome: evaluation.decisionOutcome, reply: reply, record: record(), decidedAt: now),
                gate: gate, policy: loaded, flags: flags)
        }
        return reply
    }

    /// The call's `traceparent` (W3C Trace Context), if it gave one; a malformed one is refused.
    private static func traceParent(_ call: VarlinkCall) throws(VarlinkError) -> TraceParent? {
        guard let text = try call.optionalString("traceparent") else { return nil }
        guard let parent = TraceParent(text) else { throw .invalidParameter("traceparent") }
        return parent
    }

    /// Decides `gate` for `subject` without asking anyone or recording it; with `trace`, as part
    /// of the caller's trace (its spans are children of the caller's, when a tracer is
    /// bootstrapped); with `prepared`, checking the condition built for it already.
    private func evaluate(
        _ gate: String, in loaded: LoadedPolicy, for subject: Subject, action: String, trace: TraceParent? = nil,
        prepared: LoadedPolicy.PreparedGate? = nil
    ) throws(VarlinkError) -> GateEvaluation {
        guard loaded.policy.gates[gate] != nil else { throw Self.noSuchGate(gate) }
        let started = ContinuousClock.now
        let evaluation: GateEvaluation
        // This client thread may block for its client: a file checked as the client is then
        // checked here at once, and a gate of such parts needs no task.
        switch try? TaskWait.blockingAllowed({ () throws(ConfigurationError) in
            if let prepared { return try loaded.startEvaluation(prepared) }
            return try loaded.startEvaluation(gate: gate, subject: subject)
        }) {
        case nil:
            throw Self.noSuchGate(gate)
        case .decided(let decided):
            // Every part answered on this thread: no task to start and drain.
            evaluation = decided
        case .waiting(let rest):
            evaluation = TaskWait.value {
                guard let trace, GateTracing.isTracing else { return await rest() }
                return await InstrumentationContext.withValue(trace.context) { await rest() }
            }
        }
        DecisionMetrics.time(action: action, ContinuousClock.now - started)
        DecisionMetrics.count(action: action, outcome: evaluation.decisionOutcome)
        return evaluation
    }

    /// What `asker` is told of `evaluation`: as polkit tells a client its result and a few
    /// details, never the policy's inner workings; the explanation (the groups, PAM services,
    /// users and inner names a gate is made of) goes to the audit trail, and to root callers.
    private func told(_ evaluation: GateEvaluation, in loaded: LoadedPolicy, to asker: Subject) -> Decision {
        let decision = evaluation.decision(description: loaded.policy.gates[evaluation.gate]?.summary)
        return asker.uid == 0 ? decision : decision.withoutExplanation
    }

    /// Writes `record`, counting it in the metrics when it reached no log.
    private func write(_ record: AuditRecord) {
        if !audit.record(record) { DecisionMetrics.countUndeliveredAuditRecord() }
    }

    /// Writes the record `make` makes, made only when the trail writes it (``AuditTrail``'s
    /// per-user share), counting it in the metrics when it reached no log.
    private func write(outcome: Decision.Outcome, subject: Subject, _ make: () -> AuditRecord) {
        if !audit.record(outcome: outcome, subject: subject, make) { DecisionMetrics.countUndeliveredAuditRecord() }
    }

    /// A Status call's one record: each gate with its outcome, the record's outcome the most
    /// closed of them (so `CAPCTL_OUTCOME=fails` finds a call in which any gate failed).
    private func recordStatus(_ evaluations: [GateEvaluation], subject: Subject, in loaded: LoadedPolicy) {
        let outcomes = evaluations.map(\.decisionOutcome)
        write(
            AuditRecord(
                action: "status", gate: "", outcome: Decision.Outcome.mostClosed(outcomes), subject: subject,
                reasons: zip(evaluations, outcomes).map { "\($0.gate) \($1.rawValue)" }.joined(separator: ", "),
                policyFiles: Array(Set(loaded.policy.gates.values.map(\.location.file))).sorted()))
    }

    /// The subject a root caller names: a process by pid, start time and uid (each checked, so a
    /// pid reused by another process is never decided for), or a user by name.
    private static func subject(named call: VarlinkCall) throws(VarlinkError) -> Subject {
        let pid = try call.optionalInt("pid", in: 1...Int64(Int32.max))
        let user = try call.optionalString("user")
        if let pid {
            guard user == nil else { throw .invalidParameter("user") }
            guard let startTime = try call.optionalInt("startTime", in: 0...Int64.max) else {
                throw .invalidParameter("startTime")
            }
            guard let uid = try call.optionalInt("uid", in: 0...Int64(UInt32.max - 1)) else {
                throw .invalidParameter("uid")
            }
            do throws(SubjectError) {
                return try Subject.process(Int32(pid), startTime: UInt64(startTime), uid: UInt32(uid))
            } catch {
                throw VarlinkError("org.capctl.gates.SubjectMismatch", [("reason", .string("\(error)"))])
            }
        }
        // A process's start time and uid mean nothing without its pid.
        if try call.optionalInt("startTime", in: 0...Int64.max) != nil { throw .invalidParameter("startTime") }
        if try call.optionalInt("uid", in: 0...Int64(UInt32.max - 1)) != nil { throw .invalidParameter("uid") }
        guard let user else { throw .invalidParameter("pid") }
        do throws(SubjectError) {
            return try Subject.user(named: user)
        } catch {
            throw VarlinkError("org.capctl.gates.SubjectMismatch", [("reason", .string("\(error)"))])
        }
    }

    // MARK: Authorizing

    /// What `Authorize` names.
    private enum Authorizing {
        case gate(String)
        /// A capability; `extend`: its kept login made good again, without asking when one counts.
        case capability(String, extend: Bool)
    }

    /// Decides a gate (or authorizes one capability) for the client, asking the client's
    /// person through `replies` (nil: nobody is asked, and a decision that needs asking is
    /// `io.systemd.InteractiveAuthenticationRequired`), records it, and returns what the client
    /// is told.
    private func authorize(
        _ what: Authorizing, in loaded: LoadedPolicy, for client: ClientConnection, replies: VarlinkReplies?
    ) throws(VarlinkError) -> (Decision, extended: Int64?) {
        let subject = client.subject
        var login: PendingLogin?
        if replies != nil {
            guard let pid = client.peerProcessID else {
                throw VarlinkError("org.capctl.gates.SubjectMismatch", [("reason", .string("no peer process id"))])
            }
            login = try pendingLogins.begin(uid: subject.uid, pid: pid)
        }
        defer { if let login { pendingLogins.end(login) } }
        let conversation: (any PAMConversation)? =
            if let login, let replies {
                VarlinkLoginConversation(
                    login: login, replies: replies, connection: client.lineConnection,
                    purpose: {
                        switch what {
                        case .gate(let gate): gate
                        case .capability(let capability, _): capability
                        }
                    }())
            } else {
                nil
            }
        let decision: Decision
        switch what {
        case .gate(let gate):
            // Capabilities are made for the client while its conversation is set: PAM asks the client.
            let evaluation = TaskWait.value { () -> GateEvaluation? in
                await PAMLogin.$subjectConversation.withValue(conversation) {
                    conversation == nil
                        ? try? await loaded.evaluate(gate: gate, subject: subject)
                        : try? await loaded.evaluateAllowingInteraction(gate: gate, subject: subject)
                }
            }
            guard let evaluation else { throw Self.noSuchGate(gate) }
            if conversation == nil, evaluation.outcome == .needsInteraction {
                throw Self.interactiveAuthenticationRequired
            }
            DecisionMetrics.count(action: "authorize", outcome: evaluation.decisionOutcome)
            write(AuditRecord(action: "authorize", evaluation: evaluation, policy: loaded.policy, subject: subject))
            decision = told(evaluation, in: loaded, to: subject)
        case .capability(let name, let extend):
            let (status, extended) = TaskWait.value { () -> (CapabilityStatus, Int64?) in
                await PAMLogin.$subjectConversation.withValue(conversation) {
                    do {
                        let capability = try loaded.capability(named: name, subject: subject)
                        if extend, let extending = capability as? any KeptLoginExtending,
                            let extended = try await extending.extendKeptLogin()
                        {
                            // What the record now says, not the policy's keep: a record that could
                            // not be written again was not extended.
                            return (extended.status, extended.goodFor?.components.seconds)
                        }
                        return (
                            conversation == nil ? try await capability.status() : try await capability.authorize(), nil
                        )
                    } catch {
                        return (.unavailable("\(error)"), nil)
                    }
                }
            }
            if conversation == nil, status.kind == .notDetermined { throw Self.interactiveAuthenticationRequired }
            let outcome = Decision.Outcome(status)
            DecisionMetrics.count(action: "authorize", outcome: outcome)
            write(AuditRecord(authorizing: name, status: status, policy: loaded.policy, subject: subject))
            return (Decision(gate: name, outcome: outcome, description: nil, explanation: nil), extended)
        }
        return (decision, nil)
    }

    /// systemd's word for "this needs a login, and the caller did not allow asking for one".
    private static let interactiveAuthenticationRequired = VarlinkError(
        "io.systemd.InteractiveAuthenticationRequired")

    // MARK: Watching

    /// Replies with the decision now and whenever it changes: after the policy changes, the
    /// flags of the policy in force change, or one of its capabilities' status changes for the
    /// client (a kept login running out, a file made readable), until the client closes the
    /// connection.
    private func watch(_ gate: String?, for client: ClientConnection, replies: VarlinkReplies) throws(VarlinkError) {
        // Subscribed before the first decision, so no change between the two goes unseen.
        let policyEvents = policy.events()
        let changes: EventSignal
        do { changes = try EventSignal() } catch { throw Self.busy("no descriptor left for a watch: \(error)") }
        let key = ObjectIdentifier(changes)
        watches.withLock { $0[key] = changes }
        defer { watches.withLock { $0[key] = nil } }
        // A shutdown before the watch registered is seen by the check in the loop.
        let (store, subject) = (policy, client.subject)
        let first = Self.follow(store.current, for: subject, signalling: changes)
        let follower = Task {
            // Each policy in force is followed until the next one replaces it.
            var following = first
            for await _ in policyEvents {
                following?.cancel()
                // The new policy followed before the watch decides by it: a change right after the
                // client hears the new decision is seen (signalled first, it could be missed).
                following = Self.follow(store.current, for: subject, signalling: changes)
                changes.signal()
            }
            following?.cancel()
        }
        defer { follower.cancel() }
        // The gates watched and what was last said of each: every one at first, then those that changed.
        func decisions() throws(VarlinkError) -> [(gate: String, decision: Decision)] {
            let loaded = try currentPolicy(for: client.subject)
            var decided: [(gate: String, decision: Decision)] = []
            for name in gate.map({ [$0] }) ?? loaded.policy.gates.keys.sorted() {
                decided.append(
                    (name, try decide(name, in: loaded, for: client.subject, asker: client.subject, action: "watch")))
            }
            return decided
        }
        var last: [String: Decision] = [:]
        for (name, decision) in try decisions() {
            last[name] = decision
            try replies.replyContinuing([("decision", decision.varlinkValue)])
        }
        let connection = client.lineConnection
        while true {
            if stopping.wasSignalled { return }
            // A change signalled since the last decisions is taken now; else wait for one. The
            // client may only listen meanwhile: anything it sends, or its closing, ends the watch.
            if !changes.take() {
                let read = connection.readLine(limit: 1, until: nil, interrupt: changes.descriptor, terminator: 0)
                guard case .interrupted = read else { return }
                changes.take()
            }
            if stopping.wasSignalled { return }
            guard let next = try? decisions() else { return }
            for (name, decision) in next where last[name] != decision {
                last[name] = decision
                try replies.replyContinuing([("decision", decision.varlinkValue)])
                if replies.clientIsGone { return }
            }
        }
    }
}

extension DecisionService {
    /// Signals `changes` whenever `loaded`'s flags change or one of its capabilities' status
    /// changes for `subject`, until the task is cancelled; nil without a policy.
    fileprivate static func follow(
        _ loaded: LoadedPolicy?, for subject: Subject, signalling changes: EventSignal
    ) -> Task<Void, Never>? {
        guard let loaded else { return nil }
        // Subscribed now, before the caller decides again: no change in between goes unseen.
        let flagEvents = loaded.flags.events()
        let statusUpdates = loaded.policy.capabilities.keys.sorted().compactMap { name in
            try? loaded.capability(named: name, subject: subject).statusUpdates()
        }
        return Task {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await _ in flagEvents { changes.signal() }
                }
                for updates in statusUpdates {
                    group.addTask {
                        for await _ in updates { changes.signal() }
                    }
                }
            }
        }
    }
}

/// Something each user may have a few of at once, and all users a bounded number of (logins
/// being asked, watches open: each holds a serving thread), counted.
package final class PerUserCounts: Sendable {
    /// Whether one more was begun, or which bound it met.
    package enum Begin: Equatable, Sendable {
        case begun
        case userAtLimit
        case allAtLimit
    }

    private let counts = Lock<(byUser: [UInt32: Int], total: Int)>(([:], 0))

    package init() {}

    /// Counts one more for `uid`, unless it has `limit` already or all users together `total`.
    package func begin(uid: UInt32, limit: Int, total: Int) -> Begin {
        counts.withLock { counts in
            guard counts.byUser[uid, default: 0] < limit else { return .userAtLimit }
            guard counts.total < total else { return .allAtLimit }
            counts.byUser[uid, default: 0] += 1
            counts.total += 1
            return .begun
        }
    }

    /// Counts one fewer for `uid`.
    package func end(uid: UInt32) {
        counts.withLock { counts in
            guard let held = counts.byUser[uid] else { return }
            counts.byUser[uid] = held > 1 ? held - 1 : nil
            counts.total -= 1
        }
    }
}

extension DecisionService: Service {
    /// Serves the ``listener`` until the task is cancelled or its `ServiceGroup` shuts down
    /// gracefully: then stops accepting, lets the clients being served finish (each within its
    /// own deadlines, a PAM answer's at most), and returns.
    ///
    /// ```swift
    /// import Logging
    /// import ServiceLifecycle
    ///
    /// let store = PolicyStore(searchPath: PolicySearchPath(directories: ["/etc/mydecisions"]), environment: .linux)
    /// let audit = AuditTrail(identifier: "mydecisions")
    /// let service = DecisionService(policy: store, audit: audit, listener: try ClientListener(path: "/run/mydecisions.sock"))
    /// let group = ServiceGroup(
    ///     services: [store, service], gracefulShutdownSignals: [.sigterm], logger: Logger(label: "mydecisions"))
    /// try await group.run()
    /// ```
    public func run() async throws {
        guard let listener else { throw ServiceError("the decision service was made without a listener") }
        try await withTaskCancellationHandler {
            try await withGracefulShutdownHandler {
                try await listener.serve(
                    draining: drainTimeout, idleTimeout: limits.idleTimeout, threads: Self.servingThreads
                ) { [self] client in waitingConnection(for: client) }
            } onGracefulShutdown: {
                self.shutdown()
            }
        } onCancel: {
            self.shutdown()
        }
    }
}
