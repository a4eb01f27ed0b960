public import FeatureFlags

/// How a loaded policy builds its capabilities and evaluates its flags.
///
/// Kinds keep options of their own here through ``PolicyOptionKey`` (the Linux layer adds
/// `pamConversation` and `pamUser` this way), so this type does not know any backend.
///
/// ```swift
/// let options = PolicyOptions(watchesFlagFiles: false, flagContext: FlagEvaluationContext(targetingKey: userID))
/// let store = PolicyStore(files: ["/etc/myservice/policy.yaml"], options: options)
/// _ = store
/// ```
public struct PolicyOptions: Sendable {
    /// Whether flag files are watched for changes.
    public var watchesFlagFiles: Bool
    /// The context the policy's flags are evaluated with; nil for the policy environment's
    /// ``PolicyEnvironment/hostContext``.
    public var flagContext: FlagEvaluationContext?
    private var values: [ObjectIdentifier: any Sendable] = [:]

    /// Options with watched flag files and the host's flag context.
    public init(watchesFlagFiles: Bool = true, flagContext: FlagEvaluationContext? = nil) {
        self.watchesFlagFiles = watchesFlagFiles
        self.flagContext = flagContext
    }

    /// A kind's own option, or its default.
    public subscript<Key: PolicyOptionKey>(key: Key.Type) -> Key.Value {
        get { values[ObjectIdentifier(key)] as? Key.Value ?? Key.defaultValue }
        set { values[ObjectIdentifier(key)] = newValue }
    }
}

/// A key for an option of a capability kind's own, with its default.
public protocol PolicyOptionKey {
    /// The option's type.
    associatedtype Value: Sendable
    /// The value when none was set.
    static var defaultValue: Value { get }
}
