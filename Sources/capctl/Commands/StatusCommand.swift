import ArgumentParser
import Capabilities
import CapabilityPolicy
import ConfigurationFiles
import FeatureFlags
import Foundation

/// `capctl status`: every capability, flag and gate with its status and reason. Never prompts.
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show every capability, flag and gate with its current status, without prompting.",
        discussion: """
            With no policy files, shows the host's built-in capabilities: user and groups, \
            effective Linux capabilities, network path, PAM, home and working directory access. \
            Exits 0 after listing everything; given NAMEs, exits by their statuses \
            (0 authorized, 1 denied, unavailable or undecided, 2 would need authorization).
            """
    )

    @OptionGroup var options: CommonOptions

    @OptionGroup var flagContext: FlagContextOptions

    @Argument(help: "Only these capabilities, flags or gates.")
    var names: [String] = []

    struct Report {
        var capabilities: [StatusEntry] = []
        var flags: [(entry: StatusEntry, details: FlagEvaluationDetails<FlagValue>, enabled: Bool)] = []
        var gates: [StatusEntry] = []
        var sources: [RemoteFlagSourceStatus] = []
    }

    func run() async throws {
        let report = try await Self.report(options, context: try flagContext.evaluationContext())
        var selected = report
        if !names.isEmpty {
            let known = Set(report.capabilities.map(\.name) + report.flags.map(\.entry.name) + report.gates.map(\.name))
            if let unknown = names.first(where: { !known.contains($0) }) {
                throw CommandFailure(
                    message: "capctl: no capability, flag or gate named \"\(unknown)\""
                        + NameSuggestion.didYouMean(unknown, among: known), status: ExitStatus.usage)
            }
            selected.capabilities = report.capabilities.filter { names.contains($0.name) }
            selected.flags = report.flags.filter { names.contains($0.entry.name) }
            selected.gates = report.gates.filter { names.contains($0.name) }
        }
        print(options.json ? Self.json(selected) : Self.table(selected))
        guard !names.isEmpty else { return }
        // Capabilities' and gates' words are verdicts; anything else would be a bug, and fails closed.
        let verdicts =
            (selected.capabilities + selected.gates).map { Verdict(rawValue: $0.status) ?? .unavailable }
            + selected.flags.map { Verdict(flag: $0.details) }
        let exit = Verdict.exitStatus(of: verdicts)
        if exit != ExitStatus.satisfied { throw exit }
    }

    static func report(_ options: CommonOptions, context: FlagEvaluationContext? = nil) async throws -> Report {
        var report = Report()
        let files = try PolicyContext.files(options)
        guard !files.isEmpty else {
            report.capabilities = await HostReport.current().entries
            return report
        }
        let policy = try await PolicyContext.load(options)
        FlagsCommand.warn(about: policy.flags)
        report.sources = policy.flags.remoteSources
        for name in policy.policy.capabilities.keys.sorted() {
            let declaration = policy.policy.capabilities[name]!
            let capability = try policy.capability(named: name, context: context)
            let status = await capability.resolveStatus()
            report.capabilities.append(
                StatusEntry(
                    name: name, kind: declaration.kind, status: status.kind.rawValue, reason: status.reason,
                    cause: status.cause?.name))
        }
        for (key, flag) in policy.flags.flags.sorted(by: { $0.key < $1.key }) {
            let details = policy.flags.valueDetails(key, default: .null, context: context)
            report.flags.append(
                (
                    StatusEntry(name: key, kind: "flag", status: Self.value(details), reason: Self.reason(details)),
                    details, flag.isEnabled
                ))
        }
        for name in policy.policy.gates.keys.sorted() {
            let evaluation = try await policy.evaluateWithoutAsking(gate: name, context: context)
            let status = Verdict(evaluation).rawValue
            let failing = evaluation.explanation.failedLeaves.map { "\($0.condition): \($0.reason)" }
            let reason =
                evaluation.outcome == .satisfied
                ? "all requirements hold"
                : (failing.isEmpty ? evaluation.explanation.reason : failing.joined(separator: "; "))
            report.gates.append(StatusEntry(name: name, kind: "gate", status: status, reason: reason))
        }
        return report
    }

    /// A flag's evaluated value as JSON, or what stands in for it: the caller's default is no value.
    static func value(_ details: FlagEvaluationDetails<FlagValue>) -> String {
        if details.errorCode != nil { return "error" }
        return details.variant == nil ? "(code default)" : "\(details.value)"
    }

    /// Why the flag has that value: OpenFeature's reason, the variant, or the error.
    static func reason(_ details: FlagEvaluationDetails<FlagValue>) -> String {
        if let code = details.errorCode { return "\(code.rawValue): \(details.errorMessage ?? "")" }
        return details.reason.rawValue + (details.variant.map { ", variant \($0)" } ?? "")
    }

    static func table(_ report: Report) -> String {
        var table = Table(header: ["NAME", "KIND", "STATUS", "REASON"], statusColumn: 2)
        for entry in report.capabilities + report.flags.map(\.entry) + report.gates {
            table.rows.append([entry.name, entry.kind, entry.status, entry.reason])
        }
        let now = Date().timeIntervalSince1970
        for source in report.sources {
            table.rows.append([
                source.location, "flag-source", source.condition.rawValue,
                TerminalText.escaped(FlagSourceReport.reason(source, now: now)),
            ])
        }
        return table.render()
    }

    static func json(_ report: Report) -> String {
        func entries(_ list: [StatusEntry]) -> FlagValue {
            .list(
                list.map {
                    JSONText.entry(name: $0.name, kind: $0.kind, status: $0.status, reason: $0.reason, cause: $0.cause)
                })
        }
        let flags: [FlagValue] = report.flags.map { flag in
            JSONText.entry(
                name: flag.entry.name, kind: "flag", status: flag.entry.status, reason: flag.entry.reason,
                details: [
                    "value": flag.details.value, "variant": JSONText.optional(flag.details.variant),
                    "evaluationReason": .string(flag.details.reason.rawValue),
                    "errorCode": JSONText.optional(flag.details.errorCode?.rawValue),
                ])
        }
        return JSONText.string(
            .structure([
                "capabilities": entries(report.capabilities), "flags": .list(flags), "gates": entries(report.gates),
                "flagSources": FlagSourceReport.json(report.sources),
            ]))
    }
}
