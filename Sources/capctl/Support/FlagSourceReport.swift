import FeatureFlags

/// The flag services a store follows, as `capctl flags sources` and `capctl status` show them:
/// URL, state, last success and its age, entity tag, and what is wrong.
enum FlagSourceReport {
    /// When the flags were last good, and how long ago.
    static func lastSuccess(_ status: RemoteFlagSourceStatus, now: Double) -> String {
        guard let last = status.lastSuccess else { return "never" }
        return "\(Timestamp.format(secondsSince1970: last)) (\(age(last, now: now)) ago)"
    }

    static func age(_ last: Double, now: Double) -> String {
        let seconds = max(Int(now - last), 0)
        if seconds < 120 { return "\(seconds)s" }
        if seconds < 7200 { return "\(seconds / 60)m" }
        return "\(seconds / 3600)h"
    }

    /// One line of reason: last success, entity tag, then the problem and the note.
    static func reason(_ status: RemoteFlagSourceStatus, now: Double) -> String {
        var parts = ["last success " + lastSuccess(status, now: now)]
        if let tag = status.entityTag { parts.append("ETag \(tag)") }
        if let problem = status.problem { parts.append(problem.message) }
        if let note = status.note { parts.append(note) }
        return parts.joined(separator: "; ")
    }

    static func table(_ sources: [RemoteFlagSourceStatus]) -> String {
        let now = Timestamp.secondsSince1970()
        var table = Table(header: ["SOURCE", "STATE", "LAST SUCCESS", "ETAG", "PROBLEM"], statusColumn: nil)
        for source in sources {
            let problem = [source.problem?.message, source.note].compactMap { $0 }.joined(separator: "; ")
            table.rows.append([
                source.location, source.condition.rawValue, lastSuccess(source, now: now), source.entityTag ?? "-",
                problem.isEmpty ? "-" : problem,
            ])
        }
        return table.render()
    }

    static func json(_ sources: [RemoteFlagSourceStatus]) -> FlagValue {
        let now = Timestamp.secondsSince1970()
        return .list(
            sources.map { source in
                .structure([
                    "url": .string(source.location), "state": .string(source.condition.rawValue),
                    "lastSuccess": source.lastSuccess.map { .number($0) } ?? .null,
                    "ageSeconds": source.lastSuccess.map { .number(max((now - $0).rounded(), 0)) } ?? .null,
                    "etag": JSONText.optional(source.entityTag), "problem": JSONText.optional(source.problem?.message),
                    "note": JSONText.optional(source.note),
                ])
            })
    }
}
