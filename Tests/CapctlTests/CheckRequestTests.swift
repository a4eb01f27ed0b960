import ArgumentParser
import Foundation
import TestSupport
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

    /// The argument parser's own description of `check`, as the built binary dumps it.
    private static func parserTable() throws -> (flags: Set<String>, options: [String: Bool]) {
        let dump = try runProcess(builtProduct("capctl"), ["check", "--experimental-dump-help"]).standardOutput
        let root = try #require(try JSONSerialization.jsonObject(with: Data(dump.utf8)) as? [String: Any])
        let command = try #require(root["command"] as? [String: Any])
        let arguments = try #require(command["arguments"] as? [[String: Any]])
        var flags: Set<String> = []
        var options: [String: Bool] = [:]
        for argument in arguments {
            let names = (argument["names"] as? [[String: Any]] ?? []).compactMap { name -> String? in
                guard let text = name["name"] as? String else { return nil }
                return (name["kind"] as? String == "short" ? "-" : "--") + text
            }
            for name in names {
                switch argument["kind"] as? String {
                case "flag": flags.insert(name)
                case "option": options[name] = argument["isRepeating"] as? Bool ?? false
                default: break
                }
            }
        }
        return (flags, options)
    }

    @Test("the fast reader's table of names, arities and repeatability is the argument parser's")
    func tableMatchesTheParser() throws {
        let parser = try Self.parserTable()
        // What only the argument parser answers: help and the version.
        #expect(parser.flags.subtracting(CheckRequest.flags) == ["--help", "-h", "--version"])
        #expect(CheckRequest.flags.isSubset(of: parser.flags))
        #expect(CheckRequest.options == parser.options, "every option, with one value each, repeatable alike")
    }

    /// Random command lines from the words `check` takes, and words near them: the fast reader
    /// either declines or reads exactly what the argument parser reads, and never accepts what the
    /// argument parser refuses.
    @Test("generated command lines: the fast reader declines or agrees with the argument parser")
    func generatedAgreement() throws {
        let names = Array(CheckRequest.flags) + Array(CheckRequest.options.keys) + ["--help", "-h", "--unknown", "--"]
        let values = ["gate", "other", "", "-", "-x", "a=b", "4242,17,1000", "4242", "/etc/p.yaml", "=", "--json"]
        var random = SplitMix(seed: 0x00C4_EC4E_0000_0040)
        var agreed = 0
        for round in 0..<4000 {
            var line: [String] = []
            // Half of the lines are built as a person would write them (a gate, then options with
            // values), the other half from any words in any order.
            let wellFormed = round.isMultiple(of: 2)
            if wellFormed { line.append(values.randomElement(using: &random)!) }
            for _ in 0..<Int.random(in: 0...6, using: &random) {
                let name = names.randomElement(using: &random)!
                switch Int.random(in: 0..<4, using: &random) {
                case 0 where !wellFormed: line.append(values.randomElement(using: &random)!)
                case 1: line.append(name + "=" + values.randomElement(using: &random)!)
                default:
                    line.append(name)
                    if wellFormed, CheckRequest.options[name] != nil {
                        line.append(values.randomElement(using: &random)!)
                    }
                }
            }
            if !wellFormed { line.shuffle(using: &random) }
            guard let fast = CheckRequest(fastParsing: line) else { continue }
            let parsed = try #require(try? CheckCommand.parse(line).request, "the parser refuses \(line)")
            #expect(fast == parsed, "\(line)")
            agreed += 1
        }
        #expect(agreed > 400, "enough accepted lines to mean something: \(agreed)")
    }
}
