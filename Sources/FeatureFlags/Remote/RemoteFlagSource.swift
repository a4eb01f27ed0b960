public import ConfigurationFiles

/// Flags that come from somewhere else (a flag service over HTTP, say), kept current by the
/// source itself: a ``FlagStore`` merges them with its files and inline flags, in precedence
/// order, and evaluates them in process like any other.
///
/// The source decides freshness. Once it has gone longer than its limit without a successful
/// refresh it reports ``RemoteFlagSourceEvent/expired(_:)`` and the store answers every flag it
/// supplied with an error (a gate on one is undecided), never with the old value.
public protocol RemoteFlagSource: AnyObject, Sendable {
    /// Where the flags come from (a URL), for messages.
    var location: String { get }
    /// What the source has now: its last good flags, and how it stands.
    var status: RemoteFlagSourceStatus { get }
    /// Starts following the source; `handler` is called after each change, from any thread.
    /// `follow` is false for a one-shot reader (a command that evaluates once): the source then
    /// only refreshes when asked (``refresh(onlyIfDue:)``), though its flags still expire on time.
    func start(follow: Bool, _ handler: @escaping @Sendable (RemoteFlagSourceEvent) -> Void)
    /// Asks the source once now, returning when it has answered or failed; with `onlyIfDue`, only
    /// when its flags are older than its refresh interval (or there are none).
    func refresh(onlyIfDue: Bool) async
    /// Stops following the source: the handler is not called again.
    func stop()
}

/// What happened to a remote source.
public enum RemoteFlagSourceEvent: Sendable {
    /// New flags were loaded (from the service, or from the last good copy on disk at start).
    case loaded(FlagSet)
    /// The service said the flags are unchanged (an HTTP 304): they are fresh again.
    case confirmed
    /// A refresh failed (unreachable, an error status, an invalid body); the last good flags stay.
    case failed(ConfigurationError)
    /// No refresh succeeded within the source's limit: its flags are answered with an error.
    case expired(String)
}

/// How a remote source stands, for ``FlagStore/remoteSources`` and `capctl flags`.
///
/// ```swift
/// let status = RemoteFlagSourceStatus(location: "https://flags.example.com/flags.json", condition: .stale)
/// print(status.condition)
/// ```
public struct RemoteFlagSourceStatus: Sendable {
    /// Whether the flags can be used.
    public enum Condition: String, Sendable {
        /// Nothing loaded yet (no answer, no copy on disk).
        case loading
        /// The last refresh succeeded.
        case fresh
        /// The last refresh failed; the last good flags are used until the limit.
        case stale
        /// Past the limit without a successful refresh: its flags are an error.
        case expired
    }

    /// Where the flags come from.
    public var location: String
    /// How the source stands.
    public var condition: Condition
    /// The last good flags, if any were ever loaded.
    public var flags: FlagSet?
    /// When the flags were last known good (Unix time, seconds): fetched, or confirmed unchanged.
    public var lastSuccess: Double?
    /// The entity tag of the last good flags, if the service gave one.
    public var entityTag: String?
    /// What went wrong last, while it is still wrong.
    public var problem: ConfigurationError?
    /// Something worth knowing that does not affect the flags (the copy on disk could not be kept, say).
    public var note: String?

    /// A status.
    public init(
        location: String, condition: Condition, flags: FlagSet? = nil, lastSuccess: Double? = nil,
        entityTag: String? = nil, problem: ConfigurationError? = nil, note: String? = nil
    ) {
        self.location = location
        self.condition = condition
        self.flags = flags
        self.lastSuccess = lastSuccess
        self.entityTag = entityTag
        self.problem = problem
        self.note = note
    }
}
