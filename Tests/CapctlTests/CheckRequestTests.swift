import ArgumentParser
import Testing

@testable import capctl

/// `capctl check` has two readers of its command line: ``CheckRequest/init(fastParsing:)`` for
/// the common forms (the start scripts pay for), and the argument parser for everything else.
/// Every command line the fast reader accepts must mean what the argument parser reads; the ones
/// it declines fall through to the argument parser, whose answer (a request or an error) stands.
@Suite("check's command line")
struct CheckRequestTests {
    static let accepted: [[String]] = [
        ["maintenance"],
        ["maintenance", "--non-interactive"],
        ["maintenance", "--no-prompt"],  // the earlier spelling, still accepted
        ["--non-interactive", "maintenance", "--json"],
        ["maintenance", "--explain", "--exec-condition", "--password-stdin"],
        ["maintenance", "--policy", "/etc/a.yaml", "--policy=b.yaml", "--non-interactive"],
        ["--context", "user=alice", "--context=tier=3", "maintenance", "--targeting-key", "host-7"],
        ["maintenance", "--for-process", "4242,17,1000", "--json"],
        ["maintenance", "--for-user=alice"],
        ["maintenance", "--context", "note=a=b"],
        ["gate.with-dots_and-dashes"],
        ["maintenance", "--policy", ""],
    ]

    /// Help, errors and forms the fast reader leaves to the argument parser.
    static let declined: [[String]] = [
        [],
        ["--help"],
        ["maintenance", "-h"],
        ["maintenance", "--json", "--json"],
        ["maintenance", "other"],
        ["maintenance", "--for-process", "4242,17,1000", "--for-user", "alice"],
        ["maintenance", "--for-process", "pid"],
        // A bare pid is refused, in the argument parser's words.
        ["maintenance", "--for-process", "4242"],
        ["maintenance", "--for-process", "99999999999,1,0"],
        ["maintenance", "--for-process", "4242,,1000"],
        ["maintenance", "--for-process", "-4242,1,0"],
        ["maintenance", "--policy"],
        ["maintenance", "--policy", "--json"],
        ["maintenance", "--targeting-key", "a", "--targeting-key", "b"],
        ["maintenance", "--non-interactive=yes"],
        ["maintenance", "--unknown"],
        ["--", "maintenance"],
        ["-"],
        ["maintenance", "--version"],
        [""],
        ["--targeting-key=", "maintenance"],
        ["maintenance", "--policy="],
        ["maintenance", "--context", "--"],
    ]

    @Test("what the fast reader accepts, the argument parser reads the same way", arguments: accepted)
    func agreement(arguments: [String]) throws {
        let fast = try #require(CheckRequest(fastParsing: arguments))
        let parsed = try CheckCommand.parse(arguments).request
        #expect(fast == parsed)
    }

    @Test("everything else is left to the argument parser", arguments: declined)
    func declines(arguments: [String]) {
        #expect(CheckRequest(fastParsing: arguments) == nil)
    }

    @Test("the fields are the ones given")
    func fields() throws {
        let request = try #require(
            CheckRequest(fastParsing: [
                "g", "--policy", "p1", "--policy=p2", "--context", "a=1", "--targeting-key", "k", "--for-process",
                "7,8,9",
                "--json", "--non-interactive", "--password-stdin", "--explain", "--exec-condition",
            ]))
        var expected = CheckRequest(gate: "g")
        expected.policy = ["p1", "p2"]
        expected.context = ["a=1"]
        expected.targetingKey = "k"
        expected.process = ProcessReference(pid: 7, startTime: 8, uid: 9)
        expected.json = true
        expected.nonInteractive = true
        expected.passwordStdin = true
        expected.explain = true
        expected.execCondition = true
        #expect(request == expected)
    }
}
