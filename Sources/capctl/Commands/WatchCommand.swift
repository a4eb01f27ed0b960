import ArgumentParser
import Capabilities
import CapabilityPolicy
import ConfigurationFiles
import FeatureFlags
import Foundation

/// `capctl watch`: a line each time a status changes.
struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Print a line each time a capability's or gate's status changes, until interrupted.",
        discussion:
            "Capabilities report changes as their backends hear of them (rtnetlink, file watches, expiring authorizations); gates are evaluated again, without asking, whenever one of their capabilities changes."
    )

    @OptionGroup var options: CommonOptions

    @OptionGroup var flagContext: FlagContextOptions

    @Argument(help: "Only these capabilities or gates.")
    var names: [String] = []

    func run() async throws {
        let sources = try await Self.sources(options, context: try flagContext.evaluationContext())
        let selected = names.isEmpty ? sources : sources.filter { names.contains($0.name) }
        if let unknown = names.first(where: { name in !sources.contains { $0.name == name } }) {
            throw CommandFailure(
                message: "capctl: no capability or gate named \"\(unknown)\""
                    + NameSuggestion.didYouMean(unknown, among: sources.map(\.name)), status: ExitStatus.usage)
        }
        let json = options.json
        let (lines, output) = AsyncStream<String>.makeStream()
        let printer = Task {
            for await line in lines {
                print(line)
                fflush(nil)
            }
        }
        await withTaskGroup(of: Void.self) { group in
            for source in selected {
                group.addTask {
                    for await status in source.updates {
                        output.yield(
                            json
                                ? JSONText.string(
                                    JSONText.entry(
                                        name: source.name, kind: source.kind, status: source.word(status),
                                        reason: status.reason, cause: status.cause?.name))
                                : TerminalText.escaped(source.name) + "\t" + source.word(status) + "\t"
                                    + TerminalText.escaped(status.reason))
                    }
                }
            }
        }
        output.finish()
        await printer.value
    }

    struct Source: Sendable {
        var name: String
        var kind: String
        var updates: CapabilityStatusUpdates

        /// The word `status` and `check` use: a gate's status stands for its evaluation, so
        /// unavailable there is an undecided gate.
        func word(_ status: CapabilityStatus) -> String {
            kind == "gate" && status.kind == .unavailable ? Verdict.undecided.rawValue : status.kind.rawValue
        }
    }

    static func sources(_ options: CommonOptions, context: FlagEvaluationContext? = nil) async throws -> [Source] {
        guard try !PolicyContext.files(options).isEmpty else {
            return HostReport.capabilities().compactMap { entry in
                entry.capability.map { Source(name: entry.name, kind: entry.kind, updates: $0.statusUpdates()) }
            }
        }
        let policy = try await PolicyContext.load(options, policyOptions: PolicyOptions(watchesFlagFiles: true))
        var sources: [Source] = []
        for name in policy.policy.capabilities.keys.sorted() {
            let capability = try policy.capability(named: name, context: context)
            sources.append(
                Source(name: name, kind: policy.policy.capabilities[name]!.kind, updates: capability.statusUpdates()))
        }
        for name in policy.policy.gates.keys.sorted() {
            sources.append(
                Source(
                    name: name, kind: "gate",
                    updates: GateStatus(policy: policy, gate: name, context: context).statusUpdates()))
        }
        return sources
    }
}

/// A gate seen as a capability, so its changes can be watched: its status is the gate's
/// evaluation without asking, re-read when any of the policy's capabilities or flags changes.
struct GateStatus: CapabilityType {
    let policy: LoadedPolicy
    let gate: String
    let context: FlagEvaluationContext?

    var name: String { "gate:\(gate)" }

    func status() async throws -> CapabilityStatus {
        let evaluation = try await policy.evaluateWithoutAsking(gate: gate, context: context)
        let reason = evaluation.explanation.failedLeaves.map { "\($0.condition): \($0.reason)" }.joined(separator: "; ")
        switch evaluation.outcome {
        case .satisfied: return .authorized("all requirements hold")
        case .failed: return .denied(reason)
        case .undecided: return .unavailable(reason)
        case .needsAuthorization: return .notDetermined("holds only after asking")
        }
    }

    func statusUpdates() -> CapabilityStatusUpdates {
        let sources = policy.policy.capabilities.keys.sorted().compactMap {
            try? policy.capability(named: $0).statusUpdates()
        }
        return .signalled(self, by: [policy.flags.changed], following: sources)
    }
}
