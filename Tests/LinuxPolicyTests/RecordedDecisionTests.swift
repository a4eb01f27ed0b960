import CLinuxSupport
import Capabilities
import CapabilityPolicy
import FeatureFlags
import Foundation
import Glibc
import TestSupport
import Testing

@testable import LinuxPolicy

/// Audit records read back (`RecordedDecision`): each form a record takes, hostile values, and
/// records that cannot be replayed. The soak of replays is `ReplaySoakTests`.
@Suite
struct RecordedDecisionTests {
    /// The record `record` becomes on the system log's socket at `path` (bound as `socket`): one
    /// datagram, there at once (a Unix datagram is queued at the receiver when it is sent).
    static func logged(_ record: AuditRecord, through socket: Int32, path: String) throws -> String {
        let trail = AuditTrail(level: .all, destination: .syslog(path: path), identifier: "capctl")
        trail.record(record)
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        try #require(count > 0, "the record reached the socket")
        return String(decoding: buffer[..<count], as: UTF8.self)
    }

    @Test("a record read back from its log line and from journalctl's JSON is the record, whatever its values hold")
    func roundTrip() throws {
        let directory = try TemporaryDirectory(prefix: "recorded")
        let path = directory.path + "/log"
        let socket = clinux_unix_socket(path, Int32(SOCK_DGRAM.rawValue), CLINUX_UNIX_BIND)
        try #require(socket >= 0)
        defer { close(socket) }
        var record = AuditRecord(
            action: "check", gate: "export", outcome: .fails,
            reasons: #"x" CAPCTL_OUTCOME="holds" \ "#, command: ["/bin/echo", "a\"b", "c\nCAPCTL_GATE=\"other\""])
        record.statuses = Assumptions(
            capabilities: ["admin": .notDetermined, "back\"up": .denied],
            flags: ["beta": true, "tier \"x\"\n": "gold", "n": 1.5])
        record.policyRevision = String(repeating: "ab", count: 32)
        let line = try Self.logged(record, through: socket, path: path)
        let read = try RecordedDecision(reading: line)
        #expect(read.gate == "export" && read.outcome == .fails && read.action == "check")
        #expect(read.decisionID == record.decisionID && read.policyRevision == record.policyRevision)
        #expect(read.statuses == record.statuses)
        #expect(read.uid == geteuid())
        // journalctl -o cat prints the message alone; -o short puts a prefix before it.
        let message = String(line[line.range(of: "CAPCTL_ACTION")!.lowerBound...])
        #expect(try RecordedDecision(reading: "Nov 29 06:00:00 host capctl[7]: " + message) == read)
        // journalctl -o json: each field a string member (a value with a line break as bytes).
        var members = record.fields.map { name, value in
            name == "CAPCTL_COMMAND"
                ? "\(jsonQuoted(name)):[\(value.utf8.map(String.init).joined(separator: ","))]"
                : "\(jsonQuoted(name)):\(jsonQuoted(value))"
        }
        members.append(#""MESSAGE":"ignored","__CURSOR":"s=1""#)
        #expect(try RecordedDecision(reading: "{" + members.joined(separator: ",") + "}") == read)
    }

    private func jsonQuoted(_ text: String) -> String { FlagValue.string(text).description }

    @Test(
        "what cannot be replayed is said, never guessed",
        arguments: [
            (#"capctl[1]: CAPCTL_ACTION="check" CAPCTL_GATE="g" CAPCTL_OUTCOME="holds""#, "CAPCTL_DECISION_ID"),
            (
                #"CAPCTL_ACTION="check" CAPCTL_GATE="g" CAPCTL_OUTCOME="opened" CAPCTL_DECISION_ID="0123456789abcdef0123456789abcdef""#,
                "no outcome word"
            ),
            (#"CAPCTL_ACTION="check" CAPCTL_GATE="g" CAPCTL_GATE="h" CAPCTL_OUTCOME="holds""#, "appears twice"),
            (#"CAPCTL_ACTION="check" CAPCTL_GATE="g"#, "no closing quote"),
            (
                #"CAPCTL_ACTION="check" CAPCTL_GATE="g" CAPCTL_OUTCOME="holds" CAPCTL_DECISION_ID="0123456789abcdef0123456789abcdef" CAPCTL_STATUSES="{\"a\":\"authorized\",\"b\":\"den [cut]""#,
                "cut short"
            ),
            (
                #"CAPCTL_ACTION="check" CAPCTL_GATE="g" CAPCTL_OUTCOME="holds" CAPCTL_DECISION_ID="0123456789abcdef0123456789abcdef" CAPCTL_STATUSES="{\"a\":\"granted\"}""#,
                "not a status word"
            ),
            (
                #"CAPCTL_ACTION="check" CAPCTL_GATE="g" CAPCTL_OUTCOME="holds" CAPCTL_DECISION_ID="../../etc/passwd""#,
                "32 hexadecimal"
            ),
            ("an unrelated line of the system log", "no CAPCTL_ field"),
        ])
    func unreadable(line: String, because: String) {
        #expect {
            try RecordedDecision(reading: line)
        } throws: { error in
            "\(error)".contains(because)
        }
    }
}
