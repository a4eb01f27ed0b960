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
    /// Whether flag files are watched for changes (inotify).
    public var watchesFlagFiles: Bool
    /// Whether flag services (`flags: { http: [...] }`) are asked again every `interval`. Apart
    /// from ``watchesFlagFiles``: a service that turns off file watching still sees a service's
    /// flags change. Off only for one decision and done (capctl asks each service once, when its
    /// last answer is older than `interval`). Whatever this says, a source's flags go stale by
    /// its `max-staleness` and its gates become undecided, never the last value for ever.
    public var pollsFlagServices: Bool
    /// Whether the policy's flag services are connected at all. Off for a program that decides
    /// only gates that read no flag (``Policy/readsFlags(deciding:)``), so that it neither starts
    /// nor waits for any service; flags from files and inline sets load either way. A gate that
    /// does read a flag then finds none of the services' flags: turn this off only as said.
    public var startsFlagServices = true
    /// The context the policy's flags are evaluated with; nil for the policy environment's
    /// ``PolicyEnvironment/hostContext``.
    public var flagContext: FlagEvaluationContext?
    /// Whether a traced gate decision has a child span per requirement part it checks
    /// (`capability NAME`, `flag KEY`, each with its verdict and how long it took), besides the
    /// gate's own span and its events. Off by default: a span per part costs more than the part
    /// when it is a group or a flag. Nothing is made unless a tracer is bootstrapped.
    public var tracesRequirements = false
    // A few entries, searched in order: a dictionary keyed by ObjectIdentifier made each process's
    // first policy look up ObjectIdentifier's Hashable conformance (a scan of every record), and
    // an array of tuples had its tuple type made from its mangled name at first use.
    private struct Entry {
        let key: ObjectIdentifier
        var value: any Sendable
    }
    private var values: [Entry] = []

    /// Options with watched flag files, polled flag services and the host's flag context.
    public init(
        watchesFlagFiles: Bool = true, pollsFlagServices: Bool = true, flagContext: FlagEvaluationContext? = nil
    ) {
        self.watchesFlagFiles = watchesFlagFiles
        self.pollsFlagServices = pollsFlagServices
        self.flagContext = flagContext
    }

    /// A kind's own option, or its default.
    public subscript<Key: PolicyOptionKey>(key: Key.Type) -> Key.Value {
        get {
            let id = ObjectIdentifier(key)
            return values.first { $0.key == id }?.value as? Key.Value ?? Key.defaultValue
        }
        set {
            let id = ObjectIdentifier(key)
            if let index = values.firstIndex(where: { $0.key == id }) {
                values[index].value = newValue
            } else {
                values.append(Entry(key: id, value: newValue))
            }
        }
    }
}

/// A key for an option of a capability kind's own, with its default.
public protocol PolicyOptionKey {
    /// The option's type.
    associatedtype Value: Sendable
    /// The value when none was set.
    static var defaultValue: Value { get }
}
