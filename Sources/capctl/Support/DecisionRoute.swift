import CapabilityPolicy
import DecisionService
import FeatureFlags

/// Where a gate is decided: by capctld, when it runs and capctl was not told which policy to
/// read, or in this process. capctld decides with the system's layers only, for whoever the kernel
/// says capctl runs as; in-process, capctl reads the search path with the user's layer, as before.
enum DecisionRoute {
    /// Ask capctld through this client.
    case daemon(DecisionClient)
    /// Decide here, for the reason given.
    case inProcess(reason: String)

    /// The socket capctld is asked at; empty: never ask it.
    static let socketVariable = "CAPCTL_DAEMON_SOCKET"

    /// The route for a command that reads the policy the way `policy` (its `--policy` files)
    /// says, with `flagContext` (`--context`, `--targeting-key`) given or not.
    static func choose(policy: [String], hasFlagContext: Bool = false, assuming: Bool = false) -> DecisionRoute {
        switch socket(policy: policy, hasFlagContext: hasFlagContext, assuming: assuming) {
        case .inProcess(let reason): return .inProcess(reason: reason)
        case .ask(let path):
            do throws(DecisionClient.Failure) {
                return .daemon(try DecisionClient(path: path))
            } catch {
                return .inProcess(reason: "capctld was not asked: \(error)")
            }
        }
    }

    /// Where such a command would ask capctld, or why it would not, before connecting.
    enum Socket: Equatable {
        case ask(path: String)
        case inProcess(reason: String)
    }

    /// The socket a command with these options asks capctld at, or why it decides in-process.
    /// capctl's front (Sources/capctl-front) makes the same choice for the checks it sends.
    static func socket(policy: [String], hasFlagContext: Bool = false, assuming: Bool = false) -> Socket {
        let named = ProcessEnvironment[socketVariable]
        if named == "" { return .inProcess(reason: "\(socketVariable) is empty") }
        if !policy.isEmpty { return .inProcess(reason: "--policy names the policy files") }
        // A socket named outright is asked even with other roots named: that is how a test or an
        // operator points capctl at a capctld of its own.
        if named == nil, ProcessEnvironment[PolicySearchPath.rootsVariable] != nil {
            return .inProcess(reason: "\(PolicySearchPath.rootsVariable) names the policy roots")
        }
        if hasFlagContext { return .inProcess(reason: "capctld takes no --context or --targeting-key") }
        // A what-if is no decision of the system's: capctld decides only what stands. Nobody is
        // asked in one either (CheckRequest), so a notDetermined given reads needsInteraction.
        if assuming { return .inProcess(reason: "--assume decides in-process, from the statuses given") }
        return .ask(path: named ?? DecisionClient.systemSocketPath)
    }

    /// Whether capctld is asked.
    var isDaemon: Bool {
        if case .daemon = self { return true }
        return false
    }

    /// Who decided, as `--json` says it: `capctld` or `in-process`.
    var word: String {
        switch self {
        case .daemon: "capctld"
        case .inProcess: "in-process"
        }
    }

    /// Who decided and why, as `--explain` says it.
    var sentence: String {
        switch self {
        case .daemon(let client): "decided by capctld at \(client.path)"
        case .inProcess(let reason): "decided in-process: \(reason)"
        }
    }

    /// `decidedBy` and `decidedByReason`, for a command's JSON.
    var json: [String: FlagValue] {
        switch self {
        case .daemon(let client):
            ["decidedBy": .string(word), "decidedByReason": .string("asked capctld at \(client.path)")]
        case .inProcess(let reason): ["decidedBy": .string(word), "decidedByReason": .string(reason)]
        }
    }
}
