public import Capabilities
public import FeatureFlags

/// What policies are read and run with: the capability kinds policy files may declare, the flag
/// evaluation contexts, and what follows flag services. A value passed to the loader, never
/// process state: what a file means depends only on the environment it is read with.
///
/// ``portable`` knows only `flag`. The Linux layer's environment (`PolicyEnvironment.linux`, module
/// `LinuxPolicy`) adds its kinds and this host's context; a program adds kinds of its own to a copy:
///
/// ```swift
/// import LinuxPolicy
/// var environment = PolicyEnvironment.linux   // pam, polkit, file, host, network, process-capability, user, group
/// environment.register(MyVaultKind())
/// let store = PolicyStore(searchPath: PolicySearchPath(environment: ProcessInfo.processInfo.environment), environment: environment)
/// ```
public struct PolicyEnvironment: Sendable {
    /// Only the built-in `flag` kind, the host context empty, subjects by their ids alone.
    public static let portable = PolicyEnvironment()

    private var kindsByName: [String: any CapabilityKind]

    /// A subject's ids alone; names need a user database, which the Linux layer brings.
    private static let numericContext: @Sendable (Subject) -> FlagEvaluationContext = { subject in
        FlagEvaluationContext(
            attributes: ["uid": .number(Double(subject.uid)), "gid": .number(Double(subject.gid))],
            incompleteAttributes: [
                "user": "no user database in this policy environment (PolicyEnvironment.linux has one)",
                "groups": "no group database in this policy environment (PolicyEnvironment.linux has one)",
            ])
    }

    /// An environment with the `flag` kind and `kinds` (a later kind replaces an earlier one of
    /// the same name), evaluating flags with `hostContext` and, for a subject, `subjectContext`.
    public init(
        kinds: [any CapabilityKind] = [], hostContext: FlagEvaluationContext = FlagEvaluationContext(),
        subjectContext: (@Sendable (Subject) -> FlagEvaluationContext)? = nil,
        httpFlagSource: (@Sendable (HTTPFlagSourceSettings) -> any RemoteFlagSource)? = nil
    ) {
        self.init(
            kinds: kinds, deferredHostContext: { hostContext }, subjectContext: subjectContext,
            httpFlagSource: httpFlagSource)
    }

    /// An environment whose host context is made when first read: the Linux layer's asks the user
    /// and group databases, which a policy without flags never needs.
    package init(
        kinds: [any CapabilityKind], deferredHostContext: @escaping @Sendable () -> FlagEvaluationContext,
        subjectContext: (@Sendable (Subject) -> FlagEvaluationContext)?,
        httpFlagSource: (@Sendable (HTTPFlagSourceSettings) -> any RemoteFlagSource)? = nil
    ) {
        kindsByName = Dictionary(
            ([FlagCapabilityKind()] + kinds).map { ($0.name, $0) }, uniquingKeysWith: { _, last in last })
        makeHostContext = deferredHostContext
        self.subjectContext = subjectContext ?? Self.numericContext
        self.httpFlagSource = httpFlagSource
    }

    /// Adds `kind`, replacing a kind of the same name.
    public mutating func register(_ kind: any CapabilityKind) {
        kindsByName[kind.name] = kind
    }

    /// The kind called `name`, if registered.
    public func kind(named name: String) -> (any CapabilityKind)? {
        kindsByName[name]
    }

    /// Every registered kind, by name.
    public var kinds: [any CapabilityKind] {
        kindsByName.values.sorted { $0.name < $1.name }
    }

    /// The context a loaded policy's flags are evaluated with, unless its options give one.
    public var hostContext: FlagEvaluationContext {
        get { makeHostContext() }
        set { makeHostContext = { newValue } }
    }

    private var makeHostContext: @Sendable () -> FlagEvaluationContext

    /// What follows a policy's flag services (`flags: { http: [...] }`): `RemoteFlags`'
    /// `HTTPFlagSource.init`, set by a program that links it. Without it, those services' flags
    /// are an error (their gates undecided), never absent.
    ///
    /// ```swift
    /// import RemoteFlags
    /// var environment = PolicyEnvironment.linux
    /// environment.httpFlagSource = { HTTPFlagSource($0) }
    /// ```
    public var httpFlagSource: (@Sendable (HTTPFlagSourceSettings) -> any RemoteFlagSource)?

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
    public var subjectContext: @Sendable (Subject) -> FlagEvaluationContext
}
