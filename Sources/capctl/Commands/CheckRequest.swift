import CapabilityPolicy
import ConfigurationFiles
import FeatureFlags

/// What `capctl check` was asked, whichever parser read the command line.
///
/// Scripts and systemd `ExecCondition=` lines start capctl once per decision, and
/// swift-argument-parser's reading of the command tree (runtime type lookups over every
/// protocol conformance in the binary) was over half of that start. So the common forms of
/// `check` are read by ``init(fastParsing:)``; every other command line, help and every error
/// included, goes to ``CheckCommand`` through the argument parser as before, and a test holds the
/// two readings equal (`CheckRequestTests`).
struct CheckRequest: Equatable {
    var gate: String
    var policy: [String] = []
    var json = false
    var nonInteractive = false
    var passwordStdin = false
    var explain = false
    var context: [String] = []
    var targetingKey: String?
    var process: ProcessReference?
    var user: String?
    var execCondition = false
    var assume: [String] = []
    var assumeFlags: [String] = []

    init(gate: String) {
        self.gate = gate
    }

    /// The flags the fast reader takes, each at most once. `CheckRequestTests` holds this table
    /// to `CheckCommand`'s own (its `--experimental-dump-help`).
    static let flags: Set<String> = [
        "--json", "--non-interactive", "--no-prompt", "--password-stdin", "--explain", "--exec-condition",
    ]

    /// The options the fast reader takes, each with one value, and whether it may be repeated.
    static let options: [String: Bool] = [
        "--policy": true, "--context": true, "--targeting-key": false, "--for-process": false, "--for-user": false,
        "--assume": true, "--assume-flag": true,
    ]

    /// The request when `arguments` (those after `check`) hold one gate name and only these
    /// forms: `--json`, `--non-interactive`, `--password-stdin`, `--explain`, `--exec-condition`, each
    /// at most once; `--policy` and `--context` (repeatable), `--targeting-key`, `--for-process`
    /// and `--for-user` (once), each as `--name VALUE` or `--name=VALUE`. Nil for anything else.
    init?(fastParsing arguments: [String]) {
        var gate: String?
        var request = CheckRequest(gate: "")
        var seen: Set<String> = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            guard argument.hasPrefix("-") else {
                guard gate == nil, !argument.isEmpty else { return nil }
                gate = argument
                continue
            }
            let name: String
            var value: String?
            if let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                value = String(argument[argument.index(after: equals)...])
            } else {
                name = argument
            }
            if Self.flags.contains(name) {
                guard value == nil, seen.insert(name).inserted else { return nil }
                request.setFlag(name)
                continue
            }
            guard let repeatable = Self.options[name], repeatable || seen.insert(name).inserted else { return nil }
            if value == nil {
                // The argument parser does not take a value that looks like an option.
                guard index < arguments.count, !arguments[index].hasPrefix("-") else { return nil }
                value = arguments[index]
                index += 1
            }
            // `--name=` with nothing after it is an error the argument parser words.
            guard let value, !value.isEmpty || !argument.hasSuffix("="), request.setOption(name, value) else {
                return nil
            }
        }
        // Both subjects at once is an error the argument parser words.
        guard let gate, request.process == nil || request.user == nil else { return nil }
        request.gate = gate
        self = request
    }

    private mutating func setFlag(_ name: String) {
        switch name {
        case "--json": json = true
        case "--non-interactive", "--no-prompt": nonInteractive = true
        case "--password-stdin": passwordStdin = true
        case "--explain": explain = true
        default: execCondition = true
        }
    }

    private mutating func setOption(_ name: String, _ value: String) -> Bool {
        switch name {
        case "--policy": policy.append(value)
        case "--context": context.append(value)
        case "--targeting-key": targetingKey = value
        case "--for-user": user = value
        case "--assume": assume.append(value)
        case "--assume-flag": assumeFlags.append(value)
        default:
            guard let reference = ProcessReference(argument: value) else { return false }
            process = reference
        }
        return true
    }

    /// Evaluates the gate and prints the verdict; throws the exit status when it does not hold.
    /// With `started`, capctl's front asked capctld already: its reply is read and told.
    func run(started: StartedCheck? = nil) async throws {
        if let started {
            try run(continuing: started)
            return
        }
        let route = DecisionRoute.choose(
            policy: policy, hasFlagContext: !context.isEmpty || targetingKey != nil,
            assuming: !assume.isEmpty || !assumeFlags.isEmpty)
        if case .daemon(let capctld) = route {
            try run(asking: capctld, route: route)
            return
        }
        let subject = try SubjectOptions.subject(process: process, user: user)
        let outcome = try await CheckCommand.evaluate(
            gate: gate, policyFiles: policy,
            allowingInteraction: !nonInteractive && subject == nil && assume.isEmpty && assumeFlags.isEmpty,
            context: try FlagContextOptions.evaluationContext(context: context, targetingKey: targetingKey),
            policyOptions: .forPrompting(passwordFromStandardInput: passwordStdin, purpose: gate), subject: subject,
            assume: assume, assumeFlags: assumeFlags)
        if subject != nil { outcome.audit(action: "check", gate: gate, subject: subject) }
        let summary = outcome.policy.gates[gate]?.summary
        if json {
            print(
                JSONText.string(
                    .structure(
                        [
                            "gate": .string(gate), "status": .string(outcome.verdict.gateWord),
                            "description": JSONText.optional(summary),
                            "explanation": CheckCommand.json(outcome.explanation),
                        ].merging(route.json) { first, _ in first }
                            .merging(Self.assumedJSON(outcome.assumptions)) { first, _ in first })))
        } else {
            print("\(TerminalText.escaped(gate)): \(outcome.verdict.gateWord)")
            if explain, let summary { print("  description: " + TerminalText.escaped(summary)) }
            if explain { print("  " + TerminalText.escaped(route.sentence)) }
            if let assumed = Self.assumedSentence(outcome.assumptions) { print("  " + TerminalText.escaped(assumed)) }
            if explain || outcome.verdict != .authorized {
                print(CheckCommand.tree(outcome.explanation, explainAll: explain))
            }
        }
        if outcome.verdict != .authorized { throw outcome.verdict.exitStatus }
    }

    /// `assumed` for `--json`: the statuses and values given, when any were.
    static func assumedJSON(_ assumptions: Assumptions) -> [String: FlagValue] {
        guard !assumptions.isEmpty else { return [:] }
        return [
            "assumed": .structure([
                "capabilities": .structure(assumptions.capabilities.mapValues { .string($0.rawValue) }),
                "flags": .structure(assumptions.flags),
            ])
        ]
    }

    /// One line saying what was assumed, or nil when nothing was.
    static func assumedSentence(_ assumptions: Assumptions) -> String? {
        guard !assumptions.isEmpty else { return nil }
        let parts =
            assumptions.capabilities.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value.rawValue)" }
            + assumptions.flags.sorted { $0.key < $1.key }.map { "flag \($0.key)=\($0.value)" }
        return "assumed (not asked, not read): " + parts.joined(separator: ", ")
    }
}
