import CapabilityPolicy
import LinuxBackends
import LinuxPolicy

/// capctl's audit trail: every `run` and `authorize`, and every gate decided for another subject
/// (`check --for-process`, `--for-user`), to the journal or the system log (Docs/capctl.md, "Audit").
/// The policy's `audit:` chooses what (`all` when no file says); `CAPCTL_AUDIT` may ask for more,
/// never less; `CAPCTL_AUDIT_SOCKET` sends records to that syslog socket instead, except under a
/// final system policy: what the administrator asked to record reaches the system log whatever the
/// caller's environment says, and the socket gets a copy.
enum Audit {
    /// Records `record` at the level `policy` and the environment ask for.
    static func record(_ record: AuditRecord, policy: Policy) {
        let level = level(policy: policy.audit?.level, environment: ProcessEnvironment["CAPCTL_AUDIT"])
        var destinations: [AuditTrail.Destination] = [.system]
        if let socket = ProcessEnvironment["CAPCTL_AUDIT_SOCKET"] {
            destinations = policy.finalLocation == nil ? [.syslog(path: socket)] : [.system, .syslog(path: socket)]
        }
        for destination in destinations {
            let trail = AuditTrail(level: level, destination: destination)
            trail.record(record)
            // Not delivered is said, never taken for delivered; the decision stands either way.
            if trail.failedWrites > 0 {
                let place =
                    switch destination {
                    case .system: "the journal or the system log (/dev/log)"
                    case .syslog(let path): path
                    }
                Capctl.warn("the audit record of this decision could not be delivered to \(place) (missing, or full)")
            }
        }
    }

    /// The policy's level, raised by the environment's when that asks for more. An unknown
    /// value in the environment is said and records everything.
    static func level(policy: AuditLevel?, environment: String?) -> AuditLevel {
        let policyLevel = policy ?? .all
        guard let environment else { return policyLevel }
        guard let asked = AuditLevel(rawValue: environment) else {
            let expected = AuditLevel.allCases.map(\.rawValue).joined(separator: ", ")
            Capctl.warn("CAPCTL_AUDIT: unknown level (expected \(expected)); recording every decision")
            return .all
        }
        return rank(asked) > rank(policyLevel) ? asked : policyLevel
    }

    private static func rank(_ level: AuditLevel) -> Int {
        switch level {
        case .off: 0
        case .denials: 1
        case .all: 2
        }
    }
}
