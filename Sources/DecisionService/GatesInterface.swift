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
          # satisfied: the gate holds; failed: it does not; undecided: it could not be decided
          # (it never holds then); needsInteraction: it could hold after the caller authenticates
          # (call Authorize).
          outcome: (satisfied, failed, undecided, needsInteraction),
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

        # Decides a gate for the caller, asking nobody anything.
        method Check(gate: string) -> (decision: Decision)

        # Decides a gate for another subject: a process (its pid, the start time of field 22 of
        # /proc/PID/stat, and its uid, each checked) or a user by name. Root callers only.
        method CheckForSubject(
          gate: string,
          pid: ?int,
          startTime: ?int,
          uid: ?int,
          user: ?string
        ) -> (decision: Decision)

        # Decides every gate for the caller (recorded in the audit trail as one record). For
        # root callers, also how many audit records reached no log since capctld started.
        method Status() -> (decisions: []Decision, undeliveredAuditRecords: ?int)

        # Decides a gate (or authorizes one capability of the policy) for the caller, asking it to
        # authenticate where that could open it; name exactly one. Call it with upgrade: after
        # this reply the connection leaves varlink and carries the questions as lines
        # (pam-secret:, pam-prompt:, pam-error:, pam-info:; the caller answers each question with
        # one line), then one last line: "ok: ..." when it holds, or "denied: WHY", WHY being
        # dismissed (a question went unanswered), failed, undecided or needsInteraction.
        method Authorize(gate: ?string, capability: ?string) -> (protocol: string)

        # Ends every login capctld keeps for the caller's user (as sudo -K): the next gate
        # that needs one asks again.
        method Forget() -> (removed: int)

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

        # Authorize was called without upgrade.
        error UpgradeRequired ()

        # The caller's user (or everyone) has as many connections open as capctld serves at
        # once: sent in place of a reply to the first call, and the connection is closed. Also
        # the reply to Authorize when the caller's user is answering 3 logins already, and to
        # Watch when it has 4 watches open.
        error Busy (reason: string)

        """
}
