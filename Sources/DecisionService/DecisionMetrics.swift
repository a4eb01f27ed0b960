import CapabilityPolicy
import Locking
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
///
/// Each handler is made at its first use and kept: asking the factory on every
/// decision (its label checks, its registry's lookup) was 4 % of capctld's time serving Checks.
/// A program bootstraps its metrics backend before it serves, as swift-metrics asks.
enum DecisionMetrics {
    private struct CounterKey: Hashable {
        let action: String
        let outcome: Decision.Outcome
    }

    private static let timers = Lock<[String: Metrics.Timer]>([:])
    private static let counters = Lock<[CounterKey: Counter]>([:])

    static func countUndeliveredAuditRecord() {
        Counter(label: "capctld_audit_records_undelivered_total").increment()
    }

    static func count(action: String, outcome: Decision.Outcome) {
        let key = CounterKey(action: action, outcome: outcome)
        let counter = counters.withLock { made in
            if let counter = made[key] { return counter }
            let counter = Counter(
                label: "capctld_decisions_total", dimensions: [("method", action), ("outcome", outcome.rawValue)])
            made[key] = counter
            return counter
        }
        counter.increment()
    }

    static func time(action: String, _ duration: Duration) {
        let timer = timers.withLock { made in
            if let timer = made[action] { return timer }
            let timer = Metrics.Timer(label: "capctld_decision_duration_seconds", dimensions: [("method", action)])
            made[action] = timer
            return timer
        }
        timer.recordNanoseconds(
            duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000)
    }
}
