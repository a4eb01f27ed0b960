import ArgumentParser
import Capabilities
import CapabilityPolicy
import ConfigurationFiles
import DecisionService
import Dispatch
import FeatureFlags
import Glibc
import LinuxBackends
import Plumbing
import ProcedureCore

/// `capctl watch`: a line each time a status changes.
struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract:
            "Print a line each time a capability's or gate's status or a flag's value changes, until interrupted.",
        discussion: """
            Capabilities report changes as their backends hear of them (rtnetlink, file watches, expiring \
            authorizations); gates are evaluated again, without asking, whenever one of their capabilities \
            changes; flags are evaluated again whenever their sources change. Each line starts with the time \
            (UTC, ISO 8601). Under systemd (NOTIFY_SOCKET set), says READY=1 once it watches and STOPPING=1 \
            when SIGTERM or SIGINT stops it.
            """
    )

    @OptionGroup var options: CommonOptions

    @OptionGroup var flagContext: FlagContextOptions

    @Argument(help: "Only these capabilities, gates or flags.")
    var names: [String] = []

    func run() async throws {
        let context = try flagContext.evaluationContext()
        let route = DecisionRoute.choose(policy: options.policy, hasFlagContext: context != nil)
        // capctld's gates are watched through it; capabilities and flags here, as always.
        var daemonGates: [String] = []
        if case .daemon(let capctld) = route {
            daemonGates = try StatusCommand.gates(decidedBy: capctld).map(\.name)
            if !names.isEmpty { daemonGates = daemonGates.filter(names.contains) }
        }
        var (sources, flags) = try await Self.sources(options, context: context)
        if route.isDaemon { sources.removeAll { $0.kind == "gate" } }
        let flagKeys = flags.map { Array($0.flags.keys) } ?? []
        let selected = names.isEmpty ? sources : sources.filter { names.contains($0.name) }
        let known = sources.map(\.name) + flagKeys + daemonGates
        if let unknown = names.first(where: { !known.contains($0) }) {
            throw CommandFailure(
                message: "capctl: no capability, gate or flag named \"\(unknown)\""
                    + NameSuggestion.didYouMean(unknown, among: known),
                status: ExitStatus.usage)
        }
        let json = options.json
        let (lines, output) = AsyncStream<String>.makeStream()
        let printer = Task {
            for await line in lines {
                print(line)
                fflush(nil)
            }
        }
        let stop = Self.stopOnSignals()
        let watchedFlags = names.isEmpty ? nil : Set(names)
        await withTaskGroup(of: Void.self) { group in
            for source in selected {
                group.addTask {
                    for await status in source.updates {
                        output.yield(
                            Self.line(
                                name: source.name, kind: source.kind, status: source.word(status),
                                reason: status.reason, cause: status.cause?.name, json: json))
                    }
                }
            }
            if case .daemon(let capctld) = route, !daemonGates.isEmpty {
                let watched = Set(daemonGates)
                group.addTask { await Self.watch(watched, asking: capctld, json: json, output: output) }
            }
            if let flags {
                group.addTask {
                    for await line in Self.flagLines(flags, keys: watchedFlags, context: context, json: json) {
                        output.yield(line)
                    }
                }
            }
            ServiceNotification.send("READY=1")
        }
        output.finish()
        await printer.value
        withExtendedLifetime(stop) {}
    }

    /// `gates` as capctld decides them, a line for each change, through one watch of every gate
    /// (a user has few watches), on a thread of its own (the client blocks). A watch capctld ends
    /// (it stopped) ends capctl: a watch that silently stopped would read as a gate that never
    /// changes.
    static func watch(
        _ gates: Set<String>, asking capctld: DecisionClient, json: Bool, output: AsyncStream<String>.Continuation
    ) async {
        await withCheckedContinuation { (finished: CheckedContinuation<Void, Never>) in
            let started = DetachedThread.start(named: "capctl-watch") {
                // Held, never resumed: the watch ends capctl.
                withExtendedLifetime(finished) {}
                do throws(DecisionClient.Failure) {
                    try capctld.watch(nil) { decision in
                        guard gates.contains(decision.gate) else { return true }
                        output.yield(
                            line(
                                name: decision.gate, kind: "gate", status: decision.outcome.rawValue,
                                reason: StatusCommand.reason(decidedBy: decision), json: json, decidedBy: "capctld"))
                        return true
                    }
                    Capctl.warn("capctld ended the watch")
                } catch {
                    Capctl.warn("capctld stopped answering: \(error)")
                }
                fflush(nil)
                Glibc.exit(ExitStatus.denied.rawValue)
            }
            if !started {
                Capctl.warn("cannot start a thread to watch capctld's gates")
                Glibc.exit(ExitStatus.denied.rawValue)
            }
        }
    }

    /// One line: `TIME<TAB>NAME<TAB>STATUS<TAB>REASON`, or a JSON object with `time` and `type`
    /// (`capability`, `gate` or `flag`: a capability of kind `flag` is not the flag itself).
    static func line(
        name: String, kind: String, status: String, reason: String, cause: String? = nil, json: Bool,
        type: String? = nil, decidedBy: String? = nil
    ) -> String {
        let time = Timestamp.now()
        guard json else {
            return time + "\t" + TerminalText.escaped(name) + "\t" + TerminalText.escaped(status) + "\t"
                + TerminalText.escaped(reason)
        }
        return JSONText.string(
            JSONText.entry(
                name: name, kind: kind, status: status, reason: reason, cause: cause,
                details: [
                    "time": .string(time), "type": .string(type ?? (kind == "gate" ? "gate" : "capability")),
                    "decidedBy": decidedBy.map(FlagValue.string) ?? (kind == "gate" ? .string("in-process") : .null),
                ].filter { $0.value != .null }))
    }

    /// Each flag's value first, then a line for each flag whose value changes when its sources do.
    static func flagLines(
        _ flags: FlagStore, keys: Set<String>?, context: FlagEvaluationContext?, json: Bool
    ) -> AsyncStream<String> {
        AsyncStream { continuation in
            let task = Task {
                var last: [String: String] = [:]
                func report() {
                    for key in flags.flags.keys.sorted() where keys?.contains(key) ?? true {
                        let details = flags.valueDetails(key, default: .null, context: context)
                        let value = StatusCommand.value(details)
                        let reason = StatusCommand.reason(details)
                        guard last[key] != value + "\u{0}" + reason else { continue }
                        last[key] = value + "\u{0}" + reason
                        continuation.yield(
                            line(name: key, kind: "flag", status: value, reason: reason, json: json, type: "flag"))
                    }
                    for key in Set(last.keys).subtracting(flags.flags.keys) {
                        last[key] = nil
                        continuation.yield(
                            line(
                                name: key, kind: "flag", status: "removed", reason: "no source defines it", json: json,
                                type: "flag"))
                    }
                }
                let events = flags.events()
                report()
                for await _ in events { report() }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// SIGTERM and SIGINT end the watch cleanly: STOPPING=1 to systemd, output flushed, exit 0.
    static func stopOnSignals() -> [any DispatchSourceSignal] {
        [SIGTERM, SIGINT].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                ServiceNotification.send("STOPPING=1")
                fflush(nil)
                Glibc.exit(0)
            }
            source.resume()
            return source
        }
    }

    struct Source: Sendable {
        var name: String
        var kind: String
        var updates: CapabilityStatusUpdates

        /// The word `status` and `check` use: a gate's status stands for its evaluation, said in
        /// a gate's words (unavailable there is an undecided gate).
        func word(_ status: CapabilityStatus) -> String {
            kind == "gate" ? Verdict(status).gateWord : status.kind.rawValue
        }
    }

    /// What to watch: the capabilities and gates, and the policy's flags (none without a policy).
    static func sources(_ options: CommonOptions, context: FlagEvaluationContext? = nil) async throws -> (
        [Source], FlagStore?
    ) {
        guard try !PolicyContext.files(options).isEmpty else {
            let host = HostReport.capabilities().compactMap { entry in
                entry.capability.map { Source(name: entry.name, kind: entry.kind, updates: $0.statusUpdates()) }
            }
            return (host, nil)
        }
        let policy = try await PolicyContext.load(options, policyOptions: PolicyOptions(watchesFlagFiles: true))
        if let failure = policy.flags.watchFailure { Capctl.warn("flag files are not followed: \(failure)") }
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
        return (sources, policy.flags)
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
        let evaluation = try await policy.evaluate(gate: gate, context: context)
        let reason = evaluation.explanation.failedLeaves.map { "\($0.condition): \($0.reason)" }.joined(separator: "; ")
        switch evaluation.outcome {
        case .satisfied: return .authorized("all requirements hold")
        case .failed: return .denied(reason)
        case .undecided: return .unavailable(reason)
        case .needsInteraction: return .notDetermined("holds only after asking")
        }
    }

    func statusUpdates() -> CapabilityStatusUpdates {
        let sources = policy.policy.capabilities.keys.sorted().compactMap {
            try? policy.capability(named: $0).statusUpdates()
        }
        return .signalled(self, by: [policy.flags.changed], following: sources)
    }
}
