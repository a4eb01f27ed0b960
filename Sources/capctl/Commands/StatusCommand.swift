import ArgumentParser
import Capabilities
import CapabilityPolicy
import ConfigurationFiles
import DecisionService
import FeatureFlags
import Glibc
import ProcedureCore

/// `capctl status`: every capability, flag and gate with its status and reason. Never prompts.
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show every capability, flag and gate with its current status, without prompting.",
        discussion: """
            With no policy files, shows the host's built-in capabilities: user and groups, \
            effective Linux capabilities, network path, PAM, home and working directory access. \
            Exits 0 after listing everything; given NAMEs, exits by their statuses \
            (0 authorized or holds; 1 denied, unavailable, fails or undecided; 2 would need \
            authorization).
            """
    )

    @OptionGroup var options: CommonOptions

    @OptionGroup var flagContext: FlagContextOptions

    @Argument(help: "Only these capabilities, flags or gates.")
    var names: [String] = []

    @Flag(
        name: .long,
        help: "Show where each capability, gate, flag source and setting was defined, and the definitions it replaced.")
    var origin = false

    struct Report {
        var capabilities: [StatusEntry] = []
        var flags: [(entry: StatusEntry, details: FlagEvaluationDetails<FlagValue>, enabled: Bool)] = []
        var gates: [StatusEntry] = []
        var sources: [RemoteFlagSourceStatus] = []
        /// Flag sources and settings with where they were named (only with --origin).
        var definitions: [StatusEntry] = []
    }

    func run() async throws {
        let context = try flagContext.evaluationContext()
        let route = DecisionRoute.choose(policy: options.policy, hasFlagContext: context != nil)
        let report = try await Self.report(options, context: context, origins: origin, route: route)
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
        if !origin { selected.definitions = [] }
        print(options.json ? Self.json(selected, origins: origin) : Self.table(selected, origins: origin))
        guard !names.isEmpty else { return }
        // Capabilities' and gates' words are verdicts; anything else would be a bug, and fails closed.
        let verdicts =
            selected.capabilities.map { Verdict(rawValue: $0.status) ?? .unavailable }
            + selected.gates.map { Decision.Outcome(rawValue: $0.status).map(Verdict.init) ?? .undecided }
            + selected.flags.map { Verdict(flag: $0.details) }
        let exit = Verdict.exitStatus(of: verdicts)
        if exit != ExitStatus.satisfied { throw exit }
    }

    static func report(
        _ options: CommonOptions, context: FlagEvaluationContext? = nil, origins: Bool = false,
        route: DecisionRoute = .inProcess(reason: "")
    ) async throws -> Report {
        var report = Report()
        // The gates capctld decides are its policy's, so they are listed even when this process
        // sees no policy file.
        if case .daemon(let capctld) = route { report.gates = try Self.gates(decidedBy: capctld, origins: origins) }
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
                    cause: status.cause?.name, summary: declaration.summary,
                    origin: DefinitionOrigin(
                        policy.policy, kind: "capability", name: name, at: declaration.location)))
        }
        // Which files define each flag is read again from them, so only when it is asked for.
        let flagDefinitions =
            origins
            ? Dictionary(
                ValidateCommand.flagDefinitions(policy.policy.flagSources).map { ($0.key, $0.locations) },
                uniquingKeysWith: { first, _ in first }) : [:]
        for (key, flag) in policy.flags.flags.sorted(by: { $0.key < $1.key }) {
            let details = policy.flags.valueDetails(key, default: .null, context: context)
            var origin = DefinitionOrigin(location: flag.location.description)
            if let locations = flagDefinitions[key], locations.last == flag.location {
                origin.replaced = locations.dropLast().map(\.description)
            }
            report.flags.append(
                (
                    StatusEntry(
                        name: key, kind: "flag", status: Self.value(details), reason: Self.reason(details),
                        origin: origin),
                    details, flag.isEnabled
                ))
        }
        for name in policy.policy.gates.keys.sorted() where !route.isDaemon {
            let evaluation = try await policy.evaluate(gate: name, context: context)
            let status = evaluation.decisionOutcome.rawValue
            let failing = evaluation.explanation.failedLeaves.map { "\($0.condition): \($0.reason)" }
            let reason =
                evaluation.outcome == .satisfied
                ? "all requirements hold"
                : (failing.isEmpty ? evaluation.explanation.reason : failing.joined(separator: "; "))
            let declaration = policy.policy.gates[name]!
            report.gates.append(
                StatusEntry(
                    name: name, kind: "gate", status: status, reason: reason, summary: declaration.summary,
                    origin: DefinitionOrigin(policy.policy, kind: "gate", name: name, at: declaration.location),
                    decidedBy: "in-process"))
        }
        report.definitions = Self.definitions(policy.policy)
        return report
    }

    /// Every gate as capctld decides it for this process: the reasons only when capctld gives
    /// them (to root).
    static func gates(decidedBy capctld: DecisionClient, origins: Bool = false) throws -> [StatusEntry] {
        let decisions: [Decision]
        do throws(DecisionClient.Failure) {
            decisions = try capctld.status()
        } catch {
            throw CheckRequest.failure(error, capctld: capctld.path)
        }
        // Root is warned (standard error: the table or JSON stays as it is) when capctld
        // answers from a policy its files no longer load to.
        let served = geteuid() == 0 ? try? capctld.servedPolicy() : nil
        if let warning = served?.staleWarning {
            Capctl.warn(TerminalText.escaped(warning.split(separator: "\n").joined(separator: "; ")))
        }
        return decisions.map { decision in
            var entry = StatusEntry(
                name: decision.gate, kind: "gate", status: decision.outcome.rawValue,
                reason: reason(decidedBy: decision), summary: decision.description, decidedBy: "capctld")
            // Where capctld's policy defines the gate: told to root, as the rest of that policy is.
            if origins {
                if let served, let origin = served.gateOrigins[decision.gate] {
                    var defined = DefinitionOrigin(location: origin.location)
                    defined.replaced = origin.replaced
                    entry.origin = defined
                } else {
                    entry.origin = DefinitionOrigin(location: "capctld's policy (where: told to root only)")
                }
            }
            return entry
        }
    }

    /// Why capctld decided a gate so, as far as it tells this process: the failing parts for root.
    static func reason(decidedBy decision: Decision) -> String {
        if decision.holds { return "all requirements hold (capctld)" }
        guard let explanation = decision.explanation,
            !explanation.failedLeaves.isEmpty
        else { return "capctld: it tells root only why" }
        return "capctld: " + explanation.failedLeaves.map { "\($0.condition): \($0.reason)" }.joined(separator: "; ")
    }

    /// The flag sources and settings, each with where it was named.
    static func definitions(_ policy: Policy) -> [StatusEntry] {
        var entries = DefinitionOrigin.flagSources(of: policy).map { source in
            StatusEntry(
                name: source.name, kind: "flag-source", status: "in use",
                reason: source.source == "inline"
                    ? "flags written in the policy file" : "flags from this \(source.source)",
                origin: source.origin)
        }
        if let audit = policy.audit {
            entries.append(
                StatusEntry(
                    name: "audit", kind: "setting", status: audit.level.rawValue,
                    reason: "which decisions are recorded",
                    origin: DefinitionOrigin(policy, kind: "setting", name: "audit", at: audit.location)))
        }
        if let final = policy.finalLocation {
            entries.append(
                StatusEntry(
                    name: "final", kind: "setting", status: "true",
                    reason: "the per-user layer can add definitions but not replace the system's",
                    origin: DefinitionOrigin(policy, kind: "setting", name: "final", at: final)))
        }
        return entries
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

    /// NAME, KIND, STATUS, then DESCRIPTION when any entry has one and ORIGIN with --origin, then REASON.
    static func table(_ report: Report, origins: Bool = false) -> String {
        let entries = report.capabilities + report.flags.map(\.entry) + report.gates
        let describes = entries.contains { $0.summary != nil }
        var header = ["NAME", "KIND", "STATUS"]
        if describes { header.append("DESCRIPTION") }
        if origins { header.append("ORIGIN") }
        var table = Table(header: header + ["REASON"], statusColumn: 2)
        func row(_ entry: StatusEntry) -> [String] {
            var cells = [entry.name, entry.kind, entry.status]
            if describes { cells.append(entry.summary ?? "") }
            if origins { cells.append(entry.origin?.text ?? "built-in") }
            return cells + [entry.reason]
        }
        table.rows = entries.map(row)
        let now = Timestamp.secondsSince1970()
        for source in report.sources {
            var cells = [source.location, "flag-source", source.condition.rawValue]
            if describes { cells.append("") }
            if origins { cells.append(report.definitions.first { $0.name == source.location }?.origin?.text ?? "") }
            table.rows.append(cells + [TerminalText.escaped(FlagSourceReport.reason(source, now: now))])
        }
        let remote = Set(report.sources.map(\.location))
        table.rows += report.definitions.filter { !remote.contains($0.name) }.map(row)
        return table.render()
    }

    static func json(_ report: Report, origins: Bool = false) -> String {
        func extras(_ entry: StatusEntry) -> [String: FlagValue] {
            var members: [String: FlagValue] = [:]
            if let summary = entry.summary { members["description"] = .string(summary) }
            if origins { members["origin"] = entry.origin?.json ?? .null }
            if let decidedBy = entry.decidedBy { members["decidedBy"] = .string(decidedBy) }
            return members
        }
        func entries(_ list: [StatusEntry]) -> FlagValue {
            .list(
                list.map {
                    JSONText.entry(
                        name: $0.name, kind: $0.kind, status: $0.status, reason: $0.reason, cause: $0.cause,
                        details: extras($0))
                })
        }
        let flags: [FlagValue] = report.flags.map { flag in
            JSONText.entry(
                name: flag.entry.name, kind: "flag", status: flag.entry.status, reason: flag.entry.reason,
                details: [
                    "value": flag.details.value, "variant": JSONText.optional(flag.details.variant),
                    "evaluationReason": .string(flag.details.reason.rawValue),
                    "errorCode": JSONText.optional(flag.details.errorCode?.rawValue),
                ].merging(extras(flag.entry)) { first, _ in first })
        }
        return JSONText.string(
            .structure(
                [
                    "capabilities": entries(report.capabilities), "flags": .list(flags), "gates": entries(report.gates),
                    "flagSources": FlagSourceReport.json(report.sources),
                ].merging(origins ? ["definitions": entries(report.definitions)] : [:]) { first, _ in first }))
    }
}
