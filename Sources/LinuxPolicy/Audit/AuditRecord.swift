public import Capabilities
public import CapabilityPolicy
import FeatureFlags
import Glibc
import LinuxBackends
import Locking
import Plumbing
public import ProcedureCore
import Synchronization

/// One decision, as the audit trail records it: when, for whom, which gate, the outcome, why
/// (the failing requirements in one line), the policy files that defined the gate, and for
/// `capctl run` the command; and what replays it (``RecordedDecision``, `capctl replay`): an id of
/// its own, the policy's revision, and the status each capability and flag had. Never a secret:
/// no password, no answer to a prompt, no environment.
///
/// ```swift
/// let trail = AuditTrail(identifier: "myservice")
/// trail.record(AuditRecord(action: "restart nginx", gate: "restart-unit", outcome: .holds))
/// ```
public struct AuditRecord: Sendable, Equatable {
    /// What was decided, in the words of every route (`Decision.Outcome`): holds, fails,
    /// undecided, needsInteraction or dismissed.
    public typealias Outcome = Decision.Outcome

    /// What asked: a gate check, a command run behind a gate, an authorization.
    public var action: String
    /// The gate decided (for the authorization of one capability, the capability).
    public var gate: String
    /// What was decided.
    public var outcome: Outcome
    /// The subject decided for; nil for this process.
    public var subject: Subject?
    /// The failing requirements, in one line; empty when the gate held.
    public var reasons: String
    /// The policy files that defined the gate.
    public var policyFiles: [String]
    /// For `run`: the command and its arguments.
    public var command: [String]?
    /// When the decision was made, in seconds since 1970.
    public var time: Double
    /// Who logged in to open the gate, when a login did: each PAM user with the capability, as
    /// `alice (admin-login)` (``logins(in:policy:subject:)`` finds them in a decision).
    public var logins: [String] = []
    /// The decision's own id, 32 hexadecimal digits, random: `journalctl CAPCTL_DECISION_ID=...`
    /// finds its record, and `capctl replay` takes it.
    public var decisionID: String = AuditRecord.newDecisionID()
    /// The revision of the policy that decided (`Policy.revision`), when a policy did.
    public var policyRevision: String?
    /// The status each capability and the value each flag had as the decision read them
    /// (`GateEvaluation.statuses`): enough to decide it again.
    public var statuses = Assumptions()
    /// The W3C trace the decision was part of (the caller's `traceparent`), as 32 hexadecimal
    /// digits: `CAPCTL_TRACE_ID`, to find a trace's decisions in the journal and a decision's trace.
    public var traceID: String?
    /// What the service's request asked for (the unit to restart, say), recorded as
    /// `CAPCTL_REQUEST_NAME` fields: a name is upper-cased, anything but letters, digits and `_`
    /// made `_`.
    public var details: [Detail] = []

    /// One thing a request asked for, named.
    ///
    /// ```swift
    /// var record = AuditRecord(action: "serve", gate: "restart-unit", outcome: .holds)
    /// record.details = [AuditRecord.Detail("unit", "nginx.service")]  // CAPCTL_REQUEST_UNIT="nginx.service"
    /// print(record.details.count)
    /// ```
    public struct Detail: Sendable, Hashable {
        /// Its name, such as `unit`.
        public var name: String
        /// Its value, such as `nginx.service`.
        public var value: String

        /// A detail named `name`.
        public init(_ name: String, _ value: String) {
            (self.name, self.value) = (name, value)
        }
    }

    /// A record made now.
    public init(
        action: String, gate: String, outcome: Outcome, subject: Subject? = nil, reasons: String = "",
        policyFiles: [String] = [], command: [String]? = nil
    ) {
        self.action = action
        self.gate = gate
        self.outcome = outcome
        self.subject = subject
        self.reasons = reasons
        self.policyFiles = policyFiles
        self.command = command
        time = WallClock.secondsSince1970
    }

    /// The record of a gate's decision, made the same way on every route (capctl, capctld, a
    /// service's ``ServeClientRequest``): its outcome, the failing requirements, the file that
    /// defined the gate, and who logged in when a login opened it.
    /// - Parameters:
    ///   - action: What asked (`check`, `run`, `authorize`, `serve`).
    ///   - evaluation: The gate's evaluation.
    ///   - policy: The policy that defined the gate.
    ///   - subject: Whom it was decided for; nil for this process.
    ///   - command: For `run`: the command and its arguments.
    public init(
        action: String, evaluation: GateEvaluation, policy: Policy, subject: Subject?, command: [String]? = nil
    ) {
        let decision = evaluation.decision(description: nil)
        self.init(
            action: action, gate: evaluation.gate, outcome: decision.outcome, subject: subject,
            reasons: decision.reasons, policyFiles: policy.gates[evaluation.gate].map { [$0.location.file] } ?? [],
            command: command)
        if evaluation.holds { logins = Self.logins(in: evaluation.explanation, policy: policy, subject: subject) }
        policyRevision = policy.revision
        statuses = evaluation.statuses
    }

    /// The record of one capability's authorization (`capctl authorize`, capctld's `Authorize`
    /// of a capability), in the decision's words (`Decision.Outcome(status)`).
    /// - Parameters:
    ///   - capability: The capability's name.
    ///   - status: Where its authorization ended.
    ///   - policy: The policy that defined it.
    ///   - subject: Whom it was authorized for; nil for this process.
    public init(authorizing capability: String, status: CapabilityStatus, policy: Policy, subject: Subject?) {
        self.init(
            action: "authorize", gate: capability, outcome: Decision.Outcome(status), subject: subject,
            reasons: status.kind == .authorized ? "" : status.reason,
            policyFiles: policy.capabilities[capability].map { [$0.location.file] } ?? [])
        policyRevision = policy.revision
        statuses = Assumptions(capabilities: [capability: status.kind])
    }

    /// This record as a new decision's, made now: the same gate, subject, outcome and reasons,
    /// with an id and time of its own (a route gate's decision reused for the user's next request
    /// is a decision of its own in the trail).
    package func renewed() -> AuditRecord {
        var record = self
        record.decisionID = Self.newDecisionID()
        record.time = WallClock.secondsSince1970
        return record
    }

    /// A new decision id: 64 random bits drawn once per process, then a count of this process's
    /// records. Unique without a system call per decision (a record must cost microseconds); the
    /// id names a decision, it guards nothing.
    static func newDecisionID() -> String {
        let count = decisionCount.wrappingAdd(1, ordering: .relaxed).newValue
        return String(unsafeUninitializedCapacity: 32) { bytes in
            writeHex(processPrefix, into: bytes, at: 0)
            writeHex(count, into: bytes, at: 16)
            return 32
        }
    }

    private static let processPrefix: UInt64 = {
        var generator = SystemRandomNumberGenerator()
        return generator.next()
    }()
    private static let decisionCount = Atomic<UInt64>(0)

    /// `value` as 16 lowercase hexadecimal digits at `offset`: the id is written in place, where
    /// formatting each half as a string and padding it took three allocations per decision.
    private static func writeHex(_ value: UInt64, into bytes: UnsafeMutableBufferPointer<UInt8>, at offset: Int) {
        for index in 0..<16 {
            let nibble = UInt8(truncatingIfNeeded: value >> UInt64(60 - 4 * index)) & 0xF
            bytes[offset + index] = nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
        }
    }

    /// The fields, in order, as `KEY=value` pairs for syslog and journal alike. For this process
    /// (no subject), its own ids.
    var fields: [(String, String)] {
        let uid = subject?.uid ?? geteuid()
        var fields: [(String, String)] = [
            ("CAPCTL_ACTION", action), ("CAPCTL_GATE", gate), ("CAPCTL_OUTCOME", outcome.rawValue),
            ("CAPCTL_UID", String(uid)), ("CAPCTL_DECISION_ID", decisionID),
        ]
        if let name = subject?.userName ?? (subject == nil ? Self.userName(uid) : nil) {
            fields.append(("CAPCTL_USER", name))
        }
        let pid = subject == nil ? getpid() : subject?.process?.pid
        if let pid { fields.append(("CAPCTL_PID", String(pid))) }
        if let tty = subject == nil ? Self.ownTerminal : subject?.process?.terminal {
            fields.append(("CAPCTL_TTY", tty))
        }
        if let session = subject?.process?.loginSession { fields.append(("CAPCTL_SESSION", String(session))) }
        // Bounded, so a record always fits one datagram of the system log.
        if !reasons.isEmpty { fields.append(("CAPCTL_REASONS", Self.bounded(reasons))) }
        if !policyFiles.isEmpty { fields.append(("CAPCTL_POLICY", Self.bounded(policyFiles.joined(separator: ":")))) }
        if let command { fields.append(("CAPCTL_COMMAND", Self.bounded(command.joined(separator: " ")))) }
        if !logins.isEmpty { fields.append(("CAPCTL_LOGIN", Self.bounded(logins.joined(separator: ", ")))) }
        if let policyRevision { fields.append(("CAPCTL_POLICY_REVISION", policyRevision)) }
        if let traceID, traceID.utf8.count == 32 { fields.append(("CAPCTL_TRACE_ID", traceID)) }
        // As JSON objects, whose names and values need no quoting rules of their own; a cut one
        // no longer parses, and replay says the record is incomplete rather than guess.
        if !statuses.capabilities.isEmpty {
            let words = statuses.capabilities.mapValues { FlagValue.string($0.rawValue) }
            fields.append(("CAPCTL_STATUSES", Self.bounded(FlagValue.structure(words).description)))
        }
        if !statuses.flags.isEmpty {
            fields.append(("CAPCTL_FLAGS", Self.bounded(FlagValue.structure(statuses.flags).description)))
        }
        for detail in details.prefix(16) {
            fields.append(("CAPCTL_REQUEST_" + Self.fieldName(detail.name), Self.bounded(detail.value)))
        }
        return fields
    }

    /// `name` as the tail of a journal field name: at most 32 upper-case letters, digits and `_`.
    private static func fieldName(_ name: String) -> String {
        let converted = name.uppercased().unicodeScalars.prefix(32).map { scalar -> Character in
            (("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)) ? Character(scalar) : "_"
        }
        return converted.isEmpty ? "_" : String(converted)
    }

    /// The logins that opened a decision: each `kind: pam` capability that passed in
    /// `explanation`, with the user it logs in (its `user:`, else the subject's own).
    public static func logins(in explanation: ConditionExplanation, policy: Policy, subject: Subject?) -> [String] {
        // Most policies declare no login: then no record names one, and no explanation is walked
        // (a service records every decision).
        guard policy.capabilities.values.contains(where: { $0.kind == "pam" }) else { return [] }
        var found: [String] = []
        func walk(_ node: ConditionExplanation) {
            guard node.passed, node.children.isEmpty else {
                node.children.forEach(walk)
                return
            }
            // A capability's condition is shown as `AuthorizedFor(NAME)`.
            let name =
                node.condition.hasPrefix("AuthorizedFor(") && node.condition.hasSuffix(")")
                ? String(node.condition.dropFirst("AuthorizedFor(".count).dropLast()) : node.condition
            if let declaration = policy.capabilities[name], declaration.kind == "pam" {
                let user = declaration.settings.string("user") ?? subject?.userName ?? Self.userName(geteuid())
                let entry = "\(user ?? "?") (\(name))"
                if !found.contains(entry) { found.append(entry) }
            }
            node.children.forEach(walk)
        }
        walk(explanation)
        return found
    }

    /// The longest field value recorded, in bytes; longer ones are cut and marked.
    static let maximumField = 2048

    private static func bounded(_ text: String) -> String {
        guard text.utf8.count > maximumField else { return text }
        var cut = ""
        for character in text {
            guard cut.utf8.count + character.utf8.count <= maximumField else { break }
            cut.append(character)
        }
        return cut + " [cut]"
    }

    /// User names by uid, looked up once per process: a record must cost microseconds.
    private static let names = Lock<[UInt32: String?]>([:])

    private static func userName(_ uid: UInt32) -> String? {
        if let known = names.withLock({ $0[uid] }) { return known }
        let name = ProcessIdentity.user(uid).name
        names.withLock { $0[uid] = name }
        return name
    }

    /// This process's controlling terminal, read once: a record must cost microseconds.
    private static let ownTerminal: String? = ProcessFiles.stat(of: "self").flatMap {
        ProcessFiles.terminalName($0.terminal)
    }
}
