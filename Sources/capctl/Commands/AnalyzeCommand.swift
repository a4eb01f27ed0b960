import ArgumentParser
import CapabilityPolicy
import ConfigurationFiles
import FeatureFlags

/// `capctl analyze GATE`: what a gate can come to over every assignment of its capabilities'
/// statuses and its flags' values (`GateAnalysis`), without deciding it for anyone.
struct AnalyzeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "analyze",
        abstract: "Show what a gate can come to over every status of its capabilities and value of its flags.",
        discussion: """
            Exactly, on a decision diagram of the gate: whether it can hold, fail, be undecided or ask, with an \
            assignment for each (give it back with check --assume), the capabilities and flags that never change it, \
            parts of an all-of or any-of the others make useless, and a not over a part that asks. Nothing is \
            decided and nobody is asked. Exits 0 when the gate can hold under some assignment, 1 when it never can.
            """)

    @OptionGroup var options: CommonOptions

    @Argument(help: "The gate's name.")
    var gate: String

    func run() async throws {
        let policy = try PolicyContext.declarations(options)
        let analysis: GateAnalysis
        do {
            analysis = try GateAnalysis(gate: gate, in: policy)
        } catch {
            throw CommandFailure(
                message: "capctl: \(error)" + NameSuggestion.didYouMean(gate, among: policy.gates.keys),
                status: ExitStatus.usage)
        }
        print(options.json ? JSONText.string(Self.json(analysis)) : Self.text(analysis))
        if !analysis.canHold { throw ExitStatus.denied }
    }

    static func text(_ analysis: GateAnalysis) -> String {
        var lines = [
            "gate \(analysis.gate): \(analysis.capabilities.count) capability(ies), \(analysis.flags.count) flag(s)"
        ]
        let cases: [(String, Assumptions?)] = [
            ("can hold", analysis.holdsWhen), ("can fail", analysis.failsWhen),
            ("can be undecided", analysis.undecidedWhen), ("can ask", analysis.asksWhen),
        ]
        for (question, witness) in cases {
            lines.append("  \(question): " + (witness.map { "yes, e.g. " + assignment($0) } ?? "no"))
        }
        if !analysis.canHold { lines.append("  it never holds, whatever its capabilities and flags say") }
        for name in analysis.neverMatters { lines.append("  never changes the outcome: \(name)") }
        for part in analysis.uselessParts { lines.append("  useless part: \(part)") }
        for part in analysis.negatedAsking { lines.append("  not over a part that asks: \(part)") }
        return TerminalText.lines(lines)
    }

    /// `a=authorized, b=denied, flag f=true`, as `--assume` and `--assume-flag` take them.
    static func assignment(_ assumptions: Assumptions) -> String {
        let capabilities = assumptions.capabilities.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value.rawValue)" }
        let flags = assumptions.flags.sorted { $0.key < $1.key }.map { "flag \($0.key)=\($0.value)" }
        return (capabilities + flags).joined(separator: ", ")
    }

    static func json(_ analysis: GateAnalysis) -> FlagValue {
        func witness(_ assumptions: Assumptions?) -> FlagValue {
            guard let assumptions else { return .null }
            return .structure([
                "capabilities": .structure(assumptions.capabilities.mapValues { .string($0.rawValue) }),
                "flags": .structure(assumptions.flags),
            ])
        }
        return .structure([
            "gate": .string(analysis.gate),
            "capabilities": .list(analysis.capabilities.map(FlagValue.string)),
            "flags": .list(analysis.flags.map(FlagValue.string)),
            "canHold": .bool(analysis.canHold), "canFail": .bool(analysis.canFail),
            "canBeUndecided": .bool(analysis.canBeUndecided), "canAsk": .bool(analysis.canAsk),
            "holdsWhen": witness(analysis.holdsWhen), "failsWhen": witness(analysis.failsWhen),
            "undecidedWhen": witness(analysis.undecidedWhen), "asksWhen": witness(analysis.asksWhen),
            "neverMatters": .list(analysis.neverMatters.map(FlagValue.string)),
            "uselessParts": .list(analysis.uselessParts.map(FlagValue.string)),
            "negatedAsking": .list(analysis.negatedAsking.map(FlagValue.string)),
        ])
    }
}
