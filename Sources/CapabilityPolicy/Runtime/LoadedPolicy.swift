public import Capabilities
public import ConfigurationFiles
public import FeatureFlags
import Plumbing
public import ProcedureCore

/// A policy ready to use: its capabilities built, its flags loaded, its gates turned into
/// conditions. Deny by default: asking for a name the policy does not define is an error,
/// never an open gate.
///
/// ```swift
/// let policy = try LoadedPolicy(PolicyLoader.load(searchPath: PolicySearchPath(environment: env), environment: .linux))
/// export.addCondition(try policy.condition(forGate: "export"))
/// ```
public final class LoadedPolicy: Sendable {
    /// The declarations.
    public let policy: Policy
    /// The policy's flags (its flag files, inline flags and flag services).
    public let flags: FlagStore
    /// When it was loaded, in seconds since 1970-01-01 UTC: what a service that keeps serving it
    /// after an edit failed to load says it serves.
    public let loadedAt: Double
    /// Under a final system policy whose per-user layer names flag sources: the system layers'
    /// sources alone, which the system's own gates and capabilities read, so a user's flag cannot
    /// stand in for one the system's service does not (yet) serve. Its flag services are followed
    /// apart from ``flags``' (each store follows its own).
    let systemFlags: FlagStore?
    private let capabilities: [String: any CapabilityType]
    /// ``PolicyOptions/tracesRequirements``.
    private let tracesRequirements: Bool

    /// Builds every capability of `policy` and loads its flags, with the environment the policy
    /// was read with (``Policy/environment``).
    public init(_ policy: Policy, options: PolicyOptions = PolicyOptions()) throws(PolicyErrors) {
        self.policy = policy
        loadedAt = WallClock.secondsSince1970
        tracesRequirements = options.tracesRequirements
        let environment = policy.environment
        let policy = options.startsFlagServices ? policy : policy.withoutFlagServices
        // A store without sources answers every key "not found" before it reads a context, so
        // the host's (which asks the user and group databases) is made only for a policy with flags.
        let baseContext =
            options.flagContext ?? (policy.flagSources.isEmpty ? FlagEvaluationContext() : environment.hostContext)
        let flags = FlagStore(
            sources: environment.connectedFlagSources(policy), watchesFiles: options.watchesFlagFiles,
            pollsServices: options.pollsFlagServices, context: baseContext)
        self.flags = flags
        var systemPolicy = policy
        if let sources = policy.systemFlagSources {
            systemPolicy.flagSources = sources
            systemFlags = FlagStore(
                sources: environment.connectedFlagSources(systemPolicy), watchesFiles: options.watchesFlagFiles,
                pollsServices: options.pollsFlagServices, context: baseContext)
        } else {
            systemFlags = nil
        }
        var built: [String: any CapabilityType] = [:]
        var errors: [ConfigurationError] = []
        let context = CapabilityKindContext(options: options, flags: flags)
        let systemContext = systemFlags.map { CapabilityKindContext(options: options, flags: $0) } ?? context
        for (name, declaration) in policy.capabilities {
            do throws(CapabilityConfigurationError) {
                guard let kind = environment.kind(named: declaration.kind) else {
                    throw CapabilityConfigurationError("no capability kind \"\(declaration.kind)\" is registered")
                }
                built[name] = try kind.makeCapability(
                    declaration.settings, in: declaration.fromUserLayer ? context : systemContext)
            } catch {
                errors.append(ConfigurationError("capability \"\(name)\": \(error.message)", at: declaration.location))
            }
        }
        guard errors.isEmpty else { throw PolicyErrors(errors: errors) }
        capabilities = built
    }

    /// The capability the policy calls `name`.
    /// - Parameters:
    ///   - name: The capability's name in the policy.
    ///   - context: For a `kind: flag` capability, the flag evaluation context laid over the
    ///     store's (as ``condition(forGate:context:subject:assuming:)`` uses it); other capabilities ignore it.
    ///   - subject: Whom the capability answers for (`Subject`); nil for this process.
    public func capability(
        named name: String, context: FlagEvaluationContext? = nil, subject: Subject? = nil
    ) throws(ConfigurationError) -> any CapabilityType {
        guard let capability = capabilities[name] else {
            throw ConfigurationError(
                "no capability \"\(name)\" in the policy" + Self.known(capabilities.keys, near: name))
        }
        return Self.capability(capability, context: flagContext(context, subject), subject: subject)
    }

    /// The flag context for `subject`: its identity laid over the host's, the caller's over that.
    private func flagContext(_ context: FlagEvaluationContext?, _ subject: Subject?) -> FlagEvaluationContext? {
        guard let subject else { return context }
        let subjectContext = policy.environment.subjectContext(subject)
        return context?.merged(over: subjectContext) ?? subjectContext
    }

    /// `capability` evaluated with `context` when it is a flag capability and there is one, and
    /// for `subject` when there is one.
    private static func capability(
        _ capability: any CapabilityType, context: FlagEvaluationContext?, subject: Subject?
    ) -> any CapabilityType {
        if let flag = capability as? FeatureFlag {
            guard let context else { return capability }
            return FeatureFlag(flag.key, in: flag.store, equals: flag.expected, context: context)
        }
        return subject.map { capability.evaluated(for: $0) } ?? capability
    }

    /// The condition for gate `name`, to add to a procedure. It shows in explanations as
    /// `gate NAME`, and so does every gate it uses.
    /// - Parameters:
    ///   - name: The gate's name in the policy.
    ///   - context: Laid over the flag store's context (the host's) wherever the gate reads a
    ///     flag, directly or through a `kind: flag` capability: the attributes a service evaluates
    ///     its flags with (`tier`, a user's targeting key), so the gate sees what the service sees.
    ///   - subject: Whom the gate is decided for, a service's client (`Subject`): every
    ///     capability answers for it, and flags read its `user` and `groups`; a capability that
    ///     cannot answer for another subject leaves the gate undecided. Nil for this process.
    ///   - assumptions: Statuses and flag values given in place of the real ones (a what-if).
    public func condition(
        forGate name: String, context: FlagEvaluationContext? = nil, subject: Subject? = nil,
        assuming assumptions: Assumptions = Assumptions()
    ) throws(ConfigurationError) -> any ProcedureCondition {
        try traceableCondition(
            forGate: name, lazyContext: LazyContext { [self] in flagContext(context, subject) }, subject: subject,
            assuming: assumptions
        ).condition
    }

    /// The gate's condition, and where its parts' spans go when they are traced (nil otherwise).
    private func traceableCondition(
        forGate name: String, lazyContext: LazyContext, subject: Subject?, assuming assumptions: Assumptions
    ) throws(ConfigurationError) -> (condition: any ProcedureCondition, spans: RequirementSpans?) {
        guard policy.gates[name] != nil else {
            throw ConfigurationError("no gate \"\(name)\" in the policy" + Self.known(policy.gates.keys, near: name))
        }
        var built: [String: any ProcedureCondition] = [:]
        let spans = tracesRequirements && GateTracing.isTracing ? RequirementSpans() : nil
        let target = Target(
            lazyContext: lazyContext, subject: subject, flags: flags, assumptions: assumptions, spans: spans)
        return (condition(forGate: name, context: target, built: &built), spans)
    }

    /// The flag context of `subject` alone (its user and groups, named by the databases), for
    /// ``evaluate(gate:context:subject:subjectContext:)``.
    package func subjectFlagContext(_ subject: Subject) -> FlagEvaluationContext {
        policy.environment.subjectContext(subject)
    }

    /// ``evaluate(gate:context:subject:assuming:)`` for a subject whose flag context is kept
    /// (``subjectFlagContext(_:)``, read when a flag is first read): a service deciding many
    /// requests of one user names the user's groups once, not per decision.
    package func evaluate(
        gate name: String, context: FlagEvaluationContext, subject: Subject,
        subjectContext: @escaping () -> FlagEvaluationContext
    ) async throws(ConfigurationError) -> GateEvaluation {
        let (condition, spans) = try traceableCondition(
            forGate: name, lazyContext: LazyContext { context.merged(over: subjectContext()) }, subject: subject,
            assuming: Assumptions())
        return await decide(condition, gate: name, subject: subject, interactive: false, spans: spans)
    }

    /// What a gate is evaluated with: the flag context, and the subject, if any.
    private struct Target {
        /// Made when a flag is first read: a subject's context names its user and groups, which
        /// are looked up in the user database, and most gates read no flag.
        let lazyContext: LazyContext
        let subject: Subject?
        /// The store the gate being built reads its `flag:` references from (its layer's).
        let flags: FlagStore
        /// What stands in for the real statuses and values.
        let assumptions: Assumptions
        /// Where each part's span goes, when parts are traced.
        let spans: RequirementSpans?

        var context: FlagEvaluationContext? { lazyContext.value }
    }

    /// A flag context made at its first use, while one gate's conditions are built.
    private final class LazyContext {
        private let make: () -> FlagEvaluationContext?
        private var made: FlagEvaluationContext??

        init(_ make: @escaping () -> FlagEvaluationContext?) { self.make = make }

        var value: FlagEvaluationContext? {
            if let made { return made }
            let value = make()
            made = .some(value)
            return value
        }
    }

    /// Each gate is built once, however often other gates use it (loading bounded how large the
    /// expansion may be).
    private func condition(
        forGate name: String, context: Target, built: inout [String: any ProcedureCondition]
    ) -> any ProcedureCondition {
        if let done = built[name] { return done }
        // Every reference was checked, and cycles refused, when the policy loaded.
        let label = "gate \(name)"
        let declaration = policy.gates[name]!
        let context = Target(
            lazyContext: context.lazyContext, subject: context.subject,
            flags: declaration.fromUserLayer ? flags : (systemFlags ?? flags), assumptions: context.assumptions,
            spans: context.spans)
        let gate: any ProcedureCondition =
            switch declaration.expression {
            case .allOf(let parts):
                AllOf(name: label, parts.map { condition(for: $0, context: context, built: &built) })
            case .anyOf(let parts):
                AnyOf(name: label, parts.map { condition(for: $0, context: context, built: &built) })
            case let other: AllOf(name: label, [condition(for: other, context: context, built: &built)])
            }
        built[name] = gate
        return gate
    }

    private func condition(
        for expression: GateExpression, context: Target, built: inout [String: any ProcedureCondition]
    ) -> any ProcedureCondition {
        guard let spans = context.spans else {
            return untracedCondition(for: expression, context: context, built: &built)
        }
        let condition = untracedCondition(for: expression, context: context, built: &built)
        return switch expression {
        case .capability(let name, _): TracedRequirement(requirement: condition, part: .capability(name), spans: spans)
        case .flag(let key, _): TracedRequirement(requirement: condition, part: .flag(key), spans: spans)
        default: condition
        }
    }

    private func untracedCondition(
        for expression: GateExpression, context: Target, built: inout [String: any ProcedureCondition]
    ) -> any ProcedureCondition {
        switch expression {
        case .capability(let name, _):
            let declared = capabilities[name]!
            if let assumed = context.assumptions.capability(named: name, declared: declared) {
                return AuthorizedFor(assumed, label: name)
            }
            // Only a flag capability reads the flag context.
            let capability = Self.capability(
                declared, context: declared is FeatureFlag ? context.context : nil, subject: context.subject)
            // For a subject, authorizations take turns per subject only: one client's unanswered
            // login must not hold up another's.
            return context.subject.map { AuthorizedFor(capability, label: name, answeringFor: $0) }
                ?? AuthorizedFor(capability, label: name)
        case .flag(let key, _):
            return context.assumptions.flagCondition(key) ?? FlagIsOn(key, in: context.flags, context: context.context)
        case .gate(let name, _):
            return condition(forGate: name, context: context, built: &built)
        case .allOf(let parts):
            return AllOf(parts.map { condition(for: $0, context: context, built: &built) })
        case .anyOf(let parts):
            return AnyOf(parts.map { condition(for: $0, context: context, built: &built) })
        case .not(let part):
            return Negated(condition(for: part, context: context, built: &built))
        case .silent(let part):
            return Silent(condition(for: part, context: context, built: &built))
        }
    }

    /// Evaluates gate `name` without interaction: nobody is asked, each capability answers with its
    /// current status, each flag with its value. The same evaluation as a procedure gated on
    /// ``condition(forGate:context:subject:assuming:)`` gets, with the same explanation, only without running
    /// authorization requests: a gate that could hold only by asking is
    /// `needsInteraction` (``GateEvaluation/Outcome``).
    public func evaluate(
        gate name: String, context: FlagEvaluationContext? = nil, subject: Subject? = nil,
        assuming assumptions: Assumptions = Assumptions()
    ) async throws(ConfigurationError) -> GateEvaluation {
        let (condition, spans) = try traceableCondition(
            forGate: name, lazyContext: LazyContext { [self] in flagContext(context, subject) }, subject: subject,
            assuming: assumptions)
        return await decide(condition, gate: name, subject: subject, interactive: false, spans: spans)
    }

    /// A gate's evaluation for a subject, as a service's client thread starts it: decided already
    /// when every part answered at once, else the rest to wait for.
    package enum PendingEvaluation: Sendable {
        /// Every part answered on the calling thread.
        case decided(GateEvaluation)
        /// A part must be waited for (a file checked as the client, a host asked): the evaluation.
        case waiting(@Sendable () async -> GateEvaluation)
    }

    /// ``evaluate(gate:context:subject:assuming:)`` (no context, nothing assumed), decided on the
    /// calling thread when every part of the gate answers at once, as a group's or a process
    /// capability's do: a service then starts no task for the decision. With a tracer bootstrapped
    /// the gate is always waited for, so its span times the whole check.
    package func startEvaluation(gate name: String, subject: Subject) throws(ConfigurationError) -> PendingEvaluation {
        let (condition, spans) = try traceableCondition(
            forGate: name, lazyContext: LazyContext { [self] in flagContext(nil, subject) }, subject: subject,
            assuming: Assumptions())
        if !GateTracing.isTracing, let report = condition.checkWithoutWaiting() {
            return .decided(GateEvaluation(gate: name, report: report))
        }
        return .waiting { [self] in
            await decide(condition, gate: name, subject: subject, interactive: false, spans: spans)
        }
    }

    /// A gate's condition built once for one subject, to be checked again for each of its calls
    /// (a service's client asking the same gate on its connection): the condition
    /// ``startEvaluation(gate:subject:)`` would build for every call, whose parts answer anew at
    /// every check (a file, a process read each time); only its making is saved.
    package struct PreparedGate: Sendable {
        let gate: String
        let subject: Subject
        let condition: any ProcedureCondition
    }

    /// Gate `name` prepared for `subject`; nil for a gate that may read a flag (its flag context
    /// would be the first check's, the user and group names of that moment) and while a tracer is
    /// bootstrapped (each check has spans of its own).
    package func prepare(gate name: String, subject: Subject) throws(ConfigurationError) -> PreparedGate? {
        guard !policy.readsFlags(deciding: [name]) else { return nil }
        let (condition, spans) = try traceableCondition(
            forGate: name, lazyContext: LazyContext { [self] in flagContext(nil, subject) }, subject: subject,
            assuming: Assumptions())
        guard spans == nil else { return nil }
        return PreparedGate(gate: name, subject: subject, condition: condition)
    }

    /// ``startEvaluation(gate:subject:)`` of a gate ``prepare(gate:subject:)`` made.
    package func startEvaluation(_ prepared: PreparedGate) throws(ConfigurationError) -> PendingEvaluation {
        // A tracer bootstrapped since: the check is built with its spans.
        guard !GateTracing.isTracing else { return try startEvaluation(gate: prepared.gate, subject: prepared.subject) }
        if let report = prepared.condition.checkWithoutWaiting() {
            return .decided(GateEvaluation(gate: prepared.gate, report: report))
        }
        return .waiting { [self] in
            await decide(
                prepared.condition, gate: prepared.gate, subject: prepared.subject, interactive: false, spans: nil)
        }
    }

    /// Evaluates gate `name` for this process (or for `subject`), asking for authorization where
    /// the gate could still pass (a password prompt, for example), as a procedure gated on it would.
    public func evaluateAllowingInteraction(
        gate name: String, context: FlagEvaluationContext? = nil, subject: Subject? = nil,
        assuming assumptions: Assumptions = Assumptions()
    ) async throws(ConfigurationError) -> GateEvaluation {
        let (condition, spans) = try traceableCondition(
            forGate: name, lazyContext: LazyContext { [self] in flagContext(context, subject) }, subject: subject,
            assuming: assumptions)
        return await decide(condition, gate: name, subject: subject, interactive: true, spans: spans)
    }

    /// `condition` checked for gate `name`, in a span of its own when a tracer is bootstrapped.
    private func decide(
        _ condition: any ProcedureCondition, gate name: String, subject: Subject?, interactive: Bool,
        spans: RequirementSpans?
    ) async -> GateEvaluation {
        guard GateTracing.isTracing else {
            return GateEvaluation(gate: name, report: await condition.check(allowingInteraction: interactive))
        }
        return await GateTracing.traced(gate: name, policy: policy, subject: subject, interactive: interactive) {
            spans?.enterCurrentSpan()
            return GateEvaluation(gate: name, report: await condition.check(allowingInteraction: interactive))
        }
    }

    private static func known(_ names: some Collection<String>, near name: String) -> String {
        if names.isEmpty { return " (it defines none)" }
        if let close = NameSuggestion.closest(to: name, among: names) { return " (did you mean \"\(close)\"?)" }
        return " (defined: " + names.sorted().joined(separator: ", ") + ")"
    }
}
