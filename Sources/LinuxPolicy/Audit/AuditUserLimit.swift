import Capabilities
import CapabilityPolicy

/// How many records one user's decisions may write to the audit trail in an interval. A service
/// deciding for many users writes to one journal, whose rate limit is per service: without a
/// bound, one user looping calls could make the journal drop everyone else's records. Past the
/// bound, that user's decisions are counted instead, and one summary record says how many there
/// were and what they came to.
///
/// ```swift
/// let trail = AuditTrail(identifier: "myservice", limitPerUser: .service)
/// trail.flush()  // now and then: summaries of intervals that ended
/// ```
public struct AuditUserLimit: Sendable, Equatable {
    /// The records one user may cause per interval.
    public var records: Int
    /// The interval.
    public var interval: Duration

    /// At most `records` records per user in each `interval`.
    public init(records: Int, per interval: Duration) {
        self.records = max(1, records)
        self.interval = interval
    }

    /// 100 records per user in 30 s: a person's use stays recorded one by one, and the journal's
    /// default limit of 10,000 per 30 s per service holds a hundred such users.
    public static let service = AuditUserLimit(records: 100, per: .seconds(30))
}

/// Each user's current interval: what was written, and what was counted instead.
struct AuditUserWindows {
    struct Window {
        var started: ContinuousClock.Instant
        var written = 0
        var counted: [AuditRecord.Outcome: Int] = [:]
        /// The subject of the records counted (one uid's), which the summary names: kept from the
        /// first, not copied from each (a record's copy costs a retain per field).
        var subject: Subject?
    }

    let limit: AuditUserLimit
    private var windows: [UInt32: Window] = [:]

    init(limit: AuditUserLimit) { self.limit = limit }

    /// Whether `record` (of user `uid`) is written, and the summary of that user's interval that
    /// ended before it, if records were counted in it.
    mutating func admit(
        outcome: AuditRecord.Outcome, subject: Subject?, uid: UInt32, at now: ContinuousClock.Instant
    ) -> (write: Bool, summary: AuditRecord?) {
        var summary: AuditRecord?
        // The start alone is read: a copy of the window would retain its counts and subject.
        if let started = windows[uid]?.started, now - started >= limit.interval {
            summary = windows[uid].flatMap { self.summary(of: $0, uid: uid) }
            windows[uid] = nil
        }
        // Changed where it is kept: a copy taken out and put back would copy its counts too,
        // for every decision past the limit.
        func admit(_ window: inout Window) -> Bool {
            guard window.written >= limit.records else {
                window.written += 1
                return true
            }
            window.counted[outcome, default: 0] += 1
            if window.subject == nil { window.subject = subject }
            return false
        }
        let write = admit(&windows[uid, default: Window(started: now)])
        return (write, summary)
    }

    /// The summaries of intervals that ended by `now` (every interval when `all`), which are
    /// forgotten: what a service writes now and then, and as it stops.
    mutating func due(at now: ContinuousClock.Instant, all: Bool) -> [AuditRecord] {
        var summaries: [AuditRecord] = []
        for (uid, window) in windows.sorted(by: { $0.key < $1.key }) where all || now - window.started >= limit.interval
        {
            if let summary = summary(of: window, uid: uid) { summaries.append(summary) }
            windows[uid] = nil
        }
        return summaries
    }

    /// One record for the decisions of `window` that were counted, with the most closed outcome
    /// among them (so `CAPCTL_OUTCOME=fails` finds it when any failed).
    private func summary(of window: Window, uid: UInt32) -> AuditRecord? {
        guard !window.counted.isEmpty else { return nil }
        let total = window.counted.values.reduce(0, +)
        let outcome = Decision.Outcome.mostClosed(window.counted.keys)
        let counts = Decision.Outcome.allCases.compactMap { outcome in
            window.counted[outcome].map { "\(outcome.rawValue) \($0)" }
        }
        let seconds = limit.interval.components.seconds
        return AuditRecord(
            action: "summary", gate: "", outcome: outcome, subject: window.subject.map { .user($0.user) },
            reasons:
                "\(total) more decision(s) for uid \(uid) in \(seconds) s not recorded one by one (\(counts.joined(separator: ", "))): past its \(limit.records) records per \(seconds) s"
        )
    }
}
