public import CapabilityPolicy
import FeatureFlags

/// The capability kinds of the Linux backends, for policy files (Docs/Policy.md lists their
/// settings; Docs/Backends/ says what each checks).
public enum LinuxPolicySupport {
    /// The kinds of this layer: `pam`, `polkit`, `file`, `host`, `network`, `process-capability`, `user`, `group`.
    public static let kinds: [any CapabilityKind] = [
        LinuxKinds.pam, LinuxKinds.polkit, LinuxKinds.file, LinuxKinds.host, LinuxKinds.network,
        LinuxKinds.processCapability, LinuxKinds.user, LinuxKinds.group,
    ]
}

extension PolicyEnvironment {
    /// Policies on Linux: the `flag` kind and ``LinuxPolicySupport/kinds``, flags evaluated with
    /// this host's context (`FlagEvaluationContext.host`) and, for a subject, with its user and
    /// groups (`FlagEvaluationContext.subject(_:)`).
    ///
    /// ```swift
    /// let store = PolicyStore(
    ///     searchPath: PolicySearchPath(environment: ProcessInfo.processInfo.environment), environment: .linux)
    /// ```
    public static var linux: PolicyEnvironment { linuxEnvironment }
}

/// Made once. The host context names this process's user and groups, which asks the databases
/// (the user, then each group, by id; each a file or a directory service): it is made when a
/// policy with flags first needs it.
private let linuxEnvironment = PolicyEnvironment(
    kinds: LinuxPolicySupport.kinds, deferredHostContext: { .host },
    subjectContext: { FlagEvaluationContext.subject($0) })
