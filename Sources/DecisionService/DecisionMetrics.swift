import CapabilityPolicy
import Metrics

/// Decisions as swift-metrics sees them, for whichever backend the program bootstraps (capctld:
/// Prometheus's, read with `org.capctl.gates.Metrics`; Docs/Decisions.md, "Metrics"):
///
/// - `capctld_decisions_total{method, outcome}`: a counter per method (`check`,
///   `check-for-subject`, `status`, `watch`, `authorize`) and outcome (``Decision/Outcome``'s
///   words: `holds`, `fails`, `undecided`, `needsInteraction`, `dismissed`);
/// - `capctld_decision_duration_seconds{method}`: how long deciding took, without reading the
///   call or writing the reply (a timer; Prometheus shows it as a histogram);
/// - `capctld_audit_records_undelivered_total`: records of decisions that reached no log.
enum DecisionMetrics {
    static func countUndeliveredAuditRecord() {
        Counter(label: "capctld_audit_records_undelivered_total").increment()
    }

    static func count(action: String, outcome: Decision.Outcome) {
        Counter(label: "capctld_decisions_total", dimensions: [("method", action), ("outcome", outcome.rawValue)])
            .increment()
    }

    static func time(action: String, _ duration: Duration) {
        Metrics.Timer(label: "capctld_decision_duration_seconds", dimensions: [("method", action)])
            .recordNanoseconds(
                duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000)
    }
}
