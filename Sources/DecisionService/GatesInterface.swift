/// The varlink interface capctld answers, `org.capctl.gates`: its definition, as clients read it
/// with `org.varlink.service.GetInterfaceDescription` (Docs/Decisions.md explains each method).
enum GatesInterface {
    static let name = "org.capctl.gates"

    static let description = """
        # Gates of the system's capctl policy, decided by capctld for whoever asks: the caller is
        # who the kernel says is at the other end of the socket, never what it says it is.
        interface org.capctl.gates

        # How a gate stands for one subject.
        type Decision (
          gate: string,
          # holds; fails: it does not; undecided: it could not be decided (it does not hold then);
          # needsInteraction: it could hold after the caller authenticates (call Authorize);
          # dismissed: the caller was asked and did not answer (Authorize only). The same words
          # as capctl's output, the audit trail's CAPCTL_OUTCOME and the metrics.
          outcome: (holds, fails, undecided, needsInteraction, dismissed),
          # The gate's description in the policy, if it has one.
          description: ?string,
          # What the caller can do about it: "authorize" when authenticating could open it.
          actions: []string,
          # Every part of the gate and why it stands so: for callers running as root only.
          explanation: ?Explanation
        )

        # One part of a gate (a requirement, a capability, a flag, a nested gate) and why it
        # stands so; notChecked: not asked, because the outcome was already known.
        type Explanation (
          condition: string,
          outcome: (passed, failed, undecided, notChecked),
          reason: string,
          children: []Explanation
        )

        # Decides a gate for the caller, asking nobody anything. With traceparent (W3C Trace
        # Context, 00-TRACEID-PARENTID-FLAGS), the decision is part of the caller's trace: its
        # audit record carries the trace id (CAPCTL_TRACE_ID).
        method Check(gate: string, traceparent: ?string) -> (decision: Decision)

        # Decides a gate for another subject: a process (its pid, the start time of field 22 of
        # /proc/PID/stat, and its uid, each checked) or a user by name. Root callers only.
        method CheckForSubject(
          gate: string,
          pid: ?int,
          startTime: ?int,
          uid: ?int,
          user: ?string,
          traceparent: ?string
        ) -> (decision: Decision)

        # Where a gate of the policy served is defined (file:line:column), and the earlier
        # definitions it replaced, earliest first.
        type GateOrigin (gate: string, location: string, replaced: []string)

        # The policy capctld serves: when it loaded (RFC 3339, UTC), from which files, where
        # each gate is defined, and why the files do not load now (each error with its
        # file:line:column; empty when they do, else capctld still serves the policy that
        # loaded at loadedAt).
        type PolicyState (loadedAt: ?string, files: []string, gates: []GateOrigin, problems: []string)

        # Decides every gate for the caller (recorded in the audit trail as one record). For
        # root callers, also how many audit records reached no log since capctld started, and
        # the policy served.
        method Status() -> (decisions: []Decision, undeliveredAuditRecords: ?int, policy: ?PolicyState)

        # The policy served, whether or not it loads now. Root callers only.
        method ServedPolicy() -> (policy: PolicyState)

        # A question of a login being asked for the caller, or a message to show it.
        type Question (
          # Names the login: Answer takes it.
          login: string,
          # secret: a password (read it without echo); visible: an answer that may be echoed;
          # error, info: a message to show, with no answer.
          kind: (secret, visible, error, info),
          text: string
        )

        # Decides a gate (or authorizes one capability of the policy: the decision is named by
        # it) for the caller; name exactly one. Without allowInteractiveAuthentication nobody is
        # asked, and a decision that needs a login is io.systemd.InteractiveAuthenticationRequired.
        # With it (call with more), each question of the login is a reply with question set;
        # answer each secret or visible one with Answer, from another connection of the same
        # process; the last reply has the decision. Anything sent on this connection meanwhile,
        # its closing, or 120 s without an answer dismisses the login. extend (a capability
        # only, as sudo -v) makes a login kept for the caller's terminal and session good for
        # its whole keep again without asking; extended is then how many seconds. With none
        # kept, the capability is authorized as without it.
        method Authorize(
          gate: ?string,
          capability: ?string,
          allowInteractiveAuthentication: ?bool,
          extend: ?bool
        ) -> (question: ?Question, decision: ?Decision, extended: ?int)

        # Answers the question waiting in a login asked of this process (its login name from
        # the Question); a null answer declines, which dismisses the login. An answer longer
        # than 512 bytes, with a NUL byte, or (for a visible question) a control character
        # dismisses it too.
        method Answer(login: string, answer: ?string) -> ()

        # Ends the logins capctld keeps for the caller's terminal and session (as sudo -k), or
        # with everywhere every login it keeps for the caller's user (as sudo -K): the next
        # gate that needs one asks again.
        method Forget(everywhere: ?bool) -> (removed: int)

        # The service's metrics (decisions by method and outcome, how long they took, audit
        # records that reached no log) in
        # Prometheus's text format. Root callers only.
        method Metrics() -> (text: string)

        # Decides a gate (without one: every gate of the policy in force, a reply each) for the
        # caller now, and again whenever a decision changes: after the policy, the flags of the
        # policy in force or a capability's status for the caller changes. Call it with more.
        method Watch(gate: ?string) -> (decision: Decision)

        # The policy defines no gate of that name.
        error NoSuchGate (gate: string)

        # The policy defines no capability of that name.
        error NoSuchCapability (capability: string)

        # No policy has loaded: nothing can be decided.
        error PolicyUnavailable (reason: string)

        # The subject named is not the one running: another process has that pid now, or it
        # runs as another user.
        error SubjectMismatch (reason: string)

        # The service keeps no metrics (a DecisionService made without them).
        error MetricsUnavailable ()

        # No question of that login waits for an answer from this process.
        error NoSuchQuestion (login: string)

        # The caller's user (or everyone) has as many connections open as capctld serves at
        # once: sent in place of a reply to the first call, and the connection is closed. Also
        # the reply to Authorize when the caller's user is answering 3 logins already, and to
        # Watch when it has 4 watches open.
        error Busy (reason: string)

        """
}
