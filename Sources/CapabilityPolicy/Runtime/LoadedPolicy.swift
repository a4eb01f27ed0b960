import Capabilities
import FeatureFlags
import ProcedureCore

/// A policy ready to use: its capabilities built, its flags loaded, its gates turned into
/// conditions. Deny by default: asking for a name the policy does not define is an error,
/// never an open gate.
///
/// ```swift
/// let policy = try LoadedPolicy(PolicyLoader.load(searchPath: PolicySearchPath(environment: env)))
/// export.addCondition(try policy.condition(forGate: "export"))
/// ```
public final class LoadedPolicy: Sendable {
    /// The declarations.
    public let policy: Policy
    /// The policy's flags (its flag files and inline flags).
    public let flags: FlagStore
    private let capabilities: [String: any CapabilityType]

    /// Builds every capability of `policy` and loads its flags.
    public init(_ policy: Policy, options: PolicyOptions = PolicyOptions()) throws(PolicyErrors) {
        self.policy = policy
        let flags = FlagStore(flagSets: policy.inlineFlags, files: policy.flagFiles, watch: options.watchesFlagFiles)
        self.flags = flags
        var built: [String: any CapabilityType] = [:]
        var errors: [PolicyError] = []
        for (name, declaration) in policy.capabilities {
            do throws(CapabilityConfigurationError) {
                built[name] = try CapabilityFactory.make(declaration, options: options, flags: flags)
            } catch {
                errors.append(PolicyError("capability \"\(name)\": \(error.message)", at: declaration.location))
            }
        }
        guard errors.isEmpty else { throw PolicyErrors(errors: errors) }
        capabilities = built
    }

    /// The capability the policy calls `name`.
    public func capability(named name: String) throws(PolicyError) -> any CapabilityType {
        guard let capability = capabilities[name] else {
            throw PolicyError("no capability \"\(name)\" in the policy" + Self.known(capabilities.keys))
        }
        return capability
    }

    /// The condition for gate `name`, to add to a procedure.
    public func condition(forGate name: String) throws(PolicyError) -> any ProcedureCondition {
        guard let gate = policy.gates[name] else {
            throw PolicyError("no gate \"\(name)\" in the policy" + Self.known(policy.gates.keys))
        }
        return condition(for: gate.expression)
    }

    private func condition(for expression: GateExpression) -> any ProcedureCondition {
        switch expression {
        case .capability(let name, _):
            // Every reference was checked when the policy loaded.
            return AuthorizedFor(capabilities[name]!, label: name)
        case .flag(let key, _):
            return FlagIsOn(key, in: flags)
        case .gate(let name, _):
            return AllOf([condition(for: policy.gates[name]!.expression)])
        case .allOf(let parts):
            return AllOf(parts.map(condition(for:)))
        case .anyOf(let parts):
            return AnyOf(parts.map(condition(for:)))
        case .not(let part):
            return Negated(condition(for: part))
        case .silent(let part):
            return Silent(condition(for: part))
        }
    }

    /// Evaluates gate `name` without asking anyone: each capability's current status, each flag's value.
    public func evaluateWithoutAsking(gate name: String) async throws(PolicyError) -> GateEvaluation {
        guard let gate = policy.gates[name] else {
            throw PolicyError("no gate \"\(name)\" in the policy" + Self.known(policy.gates.keys))
        }
        let node = await evaluate(gate.expression, silent: false)
        return GateEvaluation(gate: name, outcome: node.outcome, explanation: node.explanation(named: "gate \(name)"))
    }

    private struct Node {
        var outcome: GateEvaluation.Outcome
        var explanation: ConditionExplanation

        func explanation(named name: String) -> ConditionExplanation {
            ConditionExplanation(
                condition: name, outcome: explanation.outcome, reason: explanation.reason, error: explanation.error,
                children: [explanation])
        }
    }

    private func evaluate(_ expression: GateExpression, silent: Bool) async -> Node {
        func leaf(_ name: String, _ outcome: GateEvaluation.Outcome, _ reason: String) -> Node {
            let shown: ConditionExplanation.Outcome =
                switch outcome {
                case .satisfied: .passed
                case .failed: .failed
                case .needsAuthorization: .notChecked
                }
            return Node(outcome: outcome, explanation: ConditionExplanation(condition: name, outcome: shown, reason: reason))
        }
        func combine(_ name: String, _ outcome: GateEvaluation.Outcome, _ reason: String, _ parts: [Node]) -> Node {
            var node = leaf(name, outcome, reason)
            node.explanation.children = parts.map(\.explanation)
            return node
        }
        switch expression {
        case .capability(let name, _):
            let capability = capabilities[name]!
            let status = await capability.resolveStatus()
            let label = "AuthorizedFor(\(name))"
            if status.kind != .unavailable, capability.isMet(by: status) { return leaf(label, .satisfied, status.description) }
            if status.kind == .notDetermined, !silent { return leaf(label, .needsAuthorization, "would ask: \(status.reason)") }
            return leaf(label, .failed, status.description)
        case .flag(let key, _):
            let details = flags.booleanDetails(key, default: false)
            let on = details.value && details.reason != .error
            return leaf("FlagIsOn(\(key))", on ? .satisfied : .failed, details.description)
        case .gate(let name, _):
            let inner = await evaluate(policy.gates[name]!.expression, silent: silent)
            return combine("gate \(name)", inner.outcome, inner.explanation.reason, [inner])
        case .allOf(let parts), .anyOf(let parts):
            var nodes: [Node] = []
            for part in parts { nodes.append(await evaluate(part, silent: silent)) }
            let isAll: Bool = if case .allOf = expression { true } else { false }
            let outcome: GateEvaluation.Outcome
            if isAll {
                outcome = nodes.contains { $0.outcome == .failed } ? .failed
                    : (nodes.contains { $0.outcome == .needsAuthorization } ? .needsAuthorization : .satisfied)
            } else {
                outcome = nodes.contains { $0.outcome == .satisfied } ? .satisfied
                    : (nodes.contains { $0.outcome == .needsAuthorization } ? .needsAuthorization : .failed)
            }
            let failed = nodes.filter { $0.outcome == .failed }.count
            let reason: String =
                switch outcome {
                case .satisfied: isAll ? "all \(nodes.count) hold" : "at least one of \(nodes.count) holds"
                case .failed: isAll ? "\(failed) of \(nodes.count) do not hold" : "none of \(nodes.count) holds"
                case .needsAuthorization: "holds only after asking"
                }
            let names = nodes.map(\.explanation.condition).joined(separator: ", ")
            return combine(isAll ? "AllOf(\(names))" : "AnyOf(\(names))", outcome, reason, nodes)
        case .not(let part):
            let inner = await evaluate(part, silent: silent)
            let outcome: GateEvaluation.Outcome =
                switch inner.outcome {
                case .satisfied: .failed
                case .failed: .satisfied
                case .needsAuthorization: .needsAuthorization
                }
            let name = inner.explanation.condition
            let reason: String =
                switch outcome {
                case .failed: "\(name) holds"
                case .satisfied: "\(name) does not hold"
                case .needsAuthorization: "decided only after asking"
                }
            return combine("Negated(\(name))", outcome, reason, [inner])
        case .silent(let part):
            let inner = await evaluate(part, silent: true)
            return combine("Silent(\(inner.explanation.condition))", inner.outcome, "checked without asking: \(inner.explanation.reason)", [inner])
        }
    }

    private static func known(_ names: some Collection<String>) -> String {
        names.isEmpty ? " (it defines none)" : " (defined: " + names.sorted().joined(separator: ", ") + ")"
    }
}

/// The result of evaluating a gate without asking anyone.
public struct GateEvaluation: Sendable {
    /// How a gate stands.
    public enum Outcome: Sendable, Equatable {
        /// It holds now.
        case satisfied
        /// It does not hold, and asking would not change that.
        case failed
        /// It would hold only if someone authorized a capability (a password, for example).
        case needsAuthorization
    }

    /// The gate's name.
    public let gate: String
    /// How it stands.
    public let outcome: Outcome
    /// Every part with passed, failed or "not checked" (would ask), and why.
    public let explanation: ConditionExplanation
}
