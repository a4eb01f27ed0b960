public import Capabilities
public import FeatureFlags
import Locking

/// What policies are read and run with in this process: the capability kinds policy files may
/// declare, and the flag evaluation context of this host.
///
/// The portable layer knows only `flag`. The Linux layer fills in the rest:
///
/// ```swift
/// import LinuxBackends
/// LinuxPolicySupport.install()   // pam, polkit, file, host, network, process-capability, user, group; the host's flag context
/// PolicyEnvironment.shared.register(MyVaultKind())
/// ```
public final class PolicyEnvironment: Sendable {
    /// The environment every loader and loaded policy uses.
    public static let shared = PolicyEnvironment()

    private struct State: Sendable {
        var kinds: [String: any CapabilityKind]
        var hostContext = FlagEvaluationContext()
        var subjectContext: @Sendable (Subject) -> FlagEvaluationContext = PolicyEnvironment.numericContext
        var httpFlagSource: (@Sendable (HTTPFlagSourceSettings) -> any RemoteFlagSource)?
    }

    /// A subject's ids alone; names need a user database, which the Linux layer brings.
    private static let numericContext: @Sendable (Subject) -> FlagEvaluationContext = { subject in
        FlagEvaluationContext(
            attributes: ["uid": .number(Double(subject.uid)), "gid": .number(Double(subject.gid))],
            incompleteAttributes: [
                "user": "no user database is installed (LinuxPolicySupport.install())",
                "groups": "no group database is installed (LinuxPolicySupport.install())",
            ])
    }

    private let state: Lock<State>

    /// An environment with `kinds` (by default only `flag`).
    public init(kinds: [any CapabilityKind] = [FlagCapabilityKind()]) {
        state = Lock(State(kinds: Dictionary(kinds.map { ($0.name, $0) }, uniquingKeysWith: { _, last in last })))
    }

    /// Adds `kind`, replacing a kind of the same name.
    public func register(_ kind: any CapabilityKind) {
        state.withLock { $0.kinds[kind.name] = kind }
    }

    /// The kind called `name`, if registered.
    public func kind(named name: String) -> (any CapabilityKind)? {
        state.withLock { $0.kinds[name] }
    }

    /// Every registered kind, by name.
    public var kinds: [any CapabilityKind] {
        state.withLock { $0.kinds.values.sorted { $0.name < $1.name } }
    }

    /// The context a loaded policy's flags are evaluated with, unless its options give one.
    public var hostContext: FlagEvaluationContext {
        get { state.withLock { $0.hostContext } }
        set { state.withLock { $0.hostContext = newValue } }
    }

    /// What follows a policy's flag services (`flags: { http: [...] }`): `RemoteFlags`'
    /// `HTTPFlagSource.init`, set by a program that links it. Without it, those services' flags
    /// are an error (their gates undecided), never absent.
    ///
    /// ```swift
    /// import RemoteFlags
    /// PolicyEnvironment.shared.httpFlagSource = { HTTPFlagSource($0) }
    /// ```
    public var httpFlagSource: (@Sendable (HTTPFlagSourceSettings) -> any RemoteFlagSource)? {
        get { state.withLock { $0.httpFlagSource } }
        set { state.withLock { $0.httpFlagSource = newValue } }
    }

    /// The flag sources of `policy`, its flag services connected through ``httpFlagSource``.
    public func connectedFlagSources(_ policy: Policy) -> [FlagSource] {
        guard let connect = httpFlagSource else { return policy.flagSources }
        return policy.flagSources.map { source in
            if case .http(let settings) = source { return .remote(connect(settings)) }
            return source
        }
    }

    /// The context a gate evaluated for a subject reads its flags with, laid over the host's:
    /// the subject's `user`, `uid`, `gid` and `groups` in place of this process's.
    public var subjectContext: @Sendable (Subject) -> FlagEvaluationContext {
        get { state.withLock { $0.subjectContext } }
        set { state.withLock { $0.subjectContext = newValue } }
    }
}
