public import CapabilityPolicy
import FeatureFlags
import LinuxBackends

/// Makes policies work on Linux: registers the Linux capability kinds and this host's flag
/// evaluation context in a `PolicyEnvironment`. Call it once before loading policies.
public enum LinuxPolicySupport {
    /// The kinds of this layer: `pam`, `polkit`, `file`, `host`, `network`, `process-capability`, `user`, `group`.
    public static let kinds: [any CapabilityKind] = [
        PAMCapabilityKind(), PolkitCapabilityKind(), FileCapabilityKind(), HostCapabilityKind(),
        NetworkCapabilityKind(),
        ProcessCapabilityKind(),
        UserCapabilityKind(), GroupCapabilityKind(),
    ]

    /// Registers ``kinds`` and sets the host context (`FlagEvaluationContext.host`) and the
    /// context of a subject (`FlagEvaluationContext.subject(_:)`).
    public static func install(in environment: PolicyEnvironment = .shared) {
        for kind in kinds { environment.register(kind) }
        environment.hostContext = .host
        environment.subjectContext = { FlagEvaluationContext.subject($0) }
    }
}
