import Foundation
import LinuxBackends

/// capctl's audit trail: every `run` and `authorize`, and every gate decided for another subject
/// (`check --for-process`, `--for-user`), to the system log (Docs/capctl.md, "Audit").
/// `CAPCTL_AUDIT` (`all`, `denials`, `off`; `all` by default) and `CAPCTL_AUDIT_SOCKET` (`/dev/log`)
/// choose what and where.
enum Audit {
    static let trail: AuditTrail = {
        let environment = ProcessInfo.processInfo.environment
        let level = environment["CAPCTL_AUDIT"].flatMap(AuditTrail.Level.init(rawValue:)) ?? .all
        return AuditTrail(level: level, socketPath: environment["CAPCTL_AUDIT_SOCKET"] ?? "/dev/log")
    }()

    /// The record's outcome for a verdict: a status that decided nothing is undecided.
    static func outcome(_ verdict: Verdict) -> AuditRecord.Outcome {
        switch verdict {
        case .authorized: .authorized
        case .denied: .denied
        case .dismissed: .dismissed
        case .unavailable, .undecided, .notDetermined: .undecided
        }
    }
}
