import ArgumentParser
import CapabilityPolicy
import ConfigurationFiles
import FeatureFlags
import Glibc
import LinuxPolicy

/// `capctl replay RECORD...`: recorded decisions decided again from the statuses their audit
/// records carry (`RecordedDecision`, `PolicyReplay`), with the policy that decided them or another.
struct ReplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Decide recorded decisions again from their audit records, and say whether the outcome is the same.",
        discussion: """
            RECORD is a file of audit records (- for standard input: the system log's lines as --audit-socket \
            or rsyslog writes them, journalctl's lines, or journalctl -o json's objects; lines of other programs are \
            passed over), or a decision id (CAPCTL_DECISION_ID), looked up with journalctl. Each gate decision is \
            decided again with the statuses and flag values its record carries, nothing read from this host and \
            nobody asked, with the policy of the search path or --policy: give the policy of the day to check a \
            decision, or a new one to see what it would have changed. A record lacks what its decision never read; \
            where that could change the outcome now, the replay says which parts. Exits 0 when every decision \
            comes out the same, 1 when one does not (or could not), 64 for a record that cannot be read.
            """)

    @OptionGroup var options: CommonOptions

    @Argument(help: "Files of audit records (- for standard input) or decision ids.")
    var records: [String]

    func run() async throws {
        var decisions: [(source: String, decision: RecordedDecision)] = []
        var unreadable: [String] = []
        var passedOver = 0
        for record in records {
            let lines: [(String, String)]
            if RecordedDecision.isDecisionID(record) {
                lines = try JournalQuery.entries(decisionID: record).map { ("decision \(record)", $0) }
                if lines.isEmpty {
                    unreadable.append(
                        "decision \(record): journalctl found no record with that id (where journald runs, "
                            + "reading another user's records takes the systemd-journal or adm group)")
                }
            } else {
                lines = try Self.lines(of: record)
            }
            for (source, line) in lines {
                guard line.contains("CAPCTL_") else {
                    if !line.allSatisfy({ $0 == " " || $0 == "\t" }) { passedOver += 1 }
                    continue
                }
                do throws(RecordedDecision.ReadingError) {
                    let decision = try RecordedDecision(reading: line)
                    // An authorization, capctld's Status summary and Forget decide no gate.
                    guard decision.action != "authorize", !decision.gate.isEmpty else {
                        passedOver += 1
                        continue
                    }
                    decisions.append((source, decision))
                } catch {
                    unreadable.append("\(source): \(error)")
                }
            }
        }
        let policy = try await PolicyContext.load(
            policyFiles: options.policy,
            policyOptions: PolicyOptions(watchesFlagFiles: false, pollsFlagServices: false), deciding: [])
        var results: [Result] = []
        for (source, decision) in decisions {
            do throws(ConfigurationError) {
                let replay = try await PolicyReplay(
                    gate: decision.gate, statuses: decision.statuses, recorded: decision.outcome, policy: policy)
                results.append(Result(source: source, decision: decision, replay: replay, problem: nil))
            } catch {
                results.append(Result(source: source, decision: decision, replay: nil, problem: error.message))
            }
        }
        let revision = policy.policy.revision
        if options.json {
            print(JSONText.string(Self.json(results, unreadable: unreadable, revision: revision)))
        } else {
            var lines = results.map { $0.line(revision: revision) }
            lines += unreadable.map { "unreadable: \($0)" }
            let same = results.count { $0.replay?.isSame == true }
            lines.append(
                "\(results.count) decision(s) replayed: \(same) the same, \(results.count - same) not"
                    + (passedOver > 0 ? "; \(passedOver) line(s) that are no gate decision passed over" : "")
                    + (unreadable.isEmpty ? "" : "; \(unreadable.count) unreadable"))
            print(TerminalText.lines(lines))
        }
        if !unreadable.isEmpty { throw ExitStatus.usage }
        if results.contains(where: { $0.replay?.isSame != true }) { throw ExitStatus.denied }
        if results.isEmpty {
            throw CommandFailure(message: "capctl: no gate decision in what was given", status: ExitStatus.usage)
        }
    }

    /// One decision replayed, or why it could not be.
    struct Result {
        let source: String
        let decision: RecordedDecision
        let replay: PolicyReplay?
        let problem: String?

        func line(revision: String) -> String {
            let head = "\(decision.decisionID) gate \(decision.gate)"
            let revisionNote =
                decision.policyRevision.map {
                    $0 == revision
                        ? "" : " (recorded with policy revision \($0.prefix(12)), replayed with \(revision.prefix(12)))"
                }
                ?? " (the record names no policy revision)"
            guard let replay else { return "\(head): cannot replay: \(problem ?? "?")" + revisionNote }
            if replay.isSame { return "\(head): same: \(replay.outcome.rawValue)" + revisionNote }
            if replay.possibleOutcomes.count > 1 {
                let possible = replay.possibleOutcomes.map(\.rawValue).sorted().joined(separator: ", ")
                return "\(head): could differ: recorded \(decision.outcome.rawValue), now one of \(possible), "
                    + "depending on what the record has no status for: \(replay.unrecorded.joined(separator: ", "))"
                    + revisionNote
            }
            let failing = replay.explanation.failedLeaves.map { "\($0.condition): \($0.reason)" }
            return "\(head): different: recorded \(decision.outcome.rawValue), now \(replay.outcome.rawValue)"
                + (failing.isEmpty ? "" : " (\(failing.joined(separator: "; ")))") + revisionNote
        }

        var json: FlagValue {
            var object: [String: FlagValue] = [
                "decisionId": .string(decision.decisionID), "gate": .string(decision.gate),
                "recorded": .string(decision.outcome.rawValue), "source": .string(source),
                "policyRevision": decision.policyRevision.map(FlagValue.string) ?? .null,
            ]
            if let replay {
                object["outcome"] = .string(replay.outcome.rawValue)
                object["same"] = .bool(replay.isSame)
                object["possibleOutcomes"] = .list(
                    replay.possibleOutcomes.map(\.rawValue).sorted().map(FlagValue.string))
                object["unrecorded"] = .list(replay.unrecorded.map(FlagValue.string))
            } else {
                object["same"] = .bool(false)
                object["error"] = .string(problem ?? "")
            }
            return .structure(object)
        }
    }

    static func json(_ results: [Result], unreadable: [String], revision: String) -> FlagValue {
        .structure([
            "policyRevision": .string(revision), "decisions": .list(results.map(\.json)),
            "unreadable": .list(unreadable.map(FlagValue.string)),
            "same": .number(Double(results.count { $0.replay?.isSame == true })),
            "replayed": .number(Double(results.count)),
        ])
    }

    /// The lines of `path` (standard input for `-`), each with `path:LINE` to name it by. A log
    /// is data, not configuration: it is read whoever owns it (the system log's owner is syslog).
    static func lines(of path: String) throws -> [(String, String)] {
        let name = path == "-" ? "<stdin>" : path
        guard let file = path == "-" ? fdopen(dup(0), "r") : fopen(PolicyContext.absolute(path), "re") else {
            throw CommandFailure(
                message: "capctl: \(path): cannot read it: \(String(cString: strerror(errno)))",
                status: ExitStatus.usage)
        }
        defer { fclose(file) }
        var lines: [(String, String)] = []
        var buffer: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(buffer) }
        while getline(&buffer, &capacity, file) >= 0, let buffer {
            var line = String(decoding: UnsafeRawBufferPointer(start: buffer, count: strlen(buffer)), as: UTF8.self)
            if line.hasSuffix("\n") { line.removeLast() }
            lines.append(("\(name):\(lines.count + 1)", line))
        }
        return lines
    }
}
