package import Capabilities
public import ConfigurationFiles
import Dispatch
import Glibc
import Locking
import Plumbing

/// Feature flags from flagd-format files, evaluated in process and kept current as the files change.
///
/// ```swift
/// let flags = FlagStore(files: ["/etc/myservice/flags.json"])
/// if flags.value("new-export", default: false) { enableNewExport() }
/// let details = flags.evaluation("color", default: "blue", context: .init(attributes: ["tier": "gold"]))
/// ```
///
/// The type asked for is the default's: `Bool`, `String`, `Int`, `Double`, or ``FlagValue`` for
/// an object. The store is the provider's side (OpenFeature's resolution, no hooks); evaluate
/// through a ``FlagClient`` for hooks and the API's and client's contexts.
///
/// When several files define the same flag, the later file wins. Each file is watched (unless
/// `watchesFiles` is false): an edit takes effect without a restart, and an edit that does not parse
/// keeps that file's last good flags and is reported through ``problems`` and ``events()``.
///
/// Evaluation never throws. Problems come back as the caller's default with reason
/// ``FlagEvaluationReason/error`` and an ``FlagErrorCode``.
public final class FlagStore: Sendable {
    /// Where flags come from: a flag set given once, a file kept current, or a remote source.
    fileprivate enum Source: Sendable {
        case fixed(FlagSet)
        case file(path: String, flags: ReloadingValue<FlagSet, ConfigurationError>)
        case remote(any RemoteFlagSource)
        /// A source that cannot load at all (an HTTP declaration with no client to follow it).
        case unloadable(ConfigurationError)

        var flags: FlagSet? {
            switch self {
            case .fixed(let flagSet): flagSet
            case .file(_, let value): value.current
            case .remote(let source): source.status.flags
            case .unloadable: nil
            }
        }

        /// The path or URL a ``FlagSelector`` names the source by.
        var location: String? {
            switch self {
            case .fixed(let flagSet): flagSet.file
            case .file(let path, _): path
            case .remote(let source): source.location
            case .unloadable: nil
            }
        }

        var problem: ConfigurationError? {
            switch self {
            case .fixed: nil
            case .file(_, let value): value.problem
            case .remote(let source): source.status.problem
            case .unloadable(let error): error
            }
        }

        /// The flags in effect and, when they must not be used although loaded (a remote source
        /// past its staleness limit), why; a remote source's status is read once.
        var contents: (flags: FlagSet?, expiry: String?) {
            guard case .remote(let source) = self else { return (flags, nil) }
            let status = source.status
            guard status.condition == .expired else { return (status.flags, nil) }
            return (
                status.flags,
                status.problem?.description ?? "the flags from \(source.location) are past their staleness limit"
            )
        }
    }

    /// The merged flags, and the flags that must answer with an error because their source expired.
    fileprivate struct Merged: Sendable {
        var flags: [String: FlagDefinition] = [:]
        /// Flag key to why: every flag whose definition in effect comes from an expired source.
        var expired: [String: String] = [:]
        /// The value of every static flag (enabled, no targeting, nothing wrong, a default variant,
        /// not expired): what ``value(_:default:context:)`` and a client's shortcut answer.
        var staticValues: [String: FlagValue] = [:]
    }

    /// Lets reloads and remote sources reach the store's core once it exists, without keeping it
    /// alive: a store nobody holds goes away, and its sources stop.
    private final class Relay: Sendable {
        private struct Reference: Sendable { weak var core: Core? }
        private let reference = Lock(Reference())
        var core: Core? { reference.withLock { $0.core } }
        func connect(_ core: Core) { reference.withLock { $0.core = core } }
    }

    /// What the store's callbacks (file reloads, remote sources, the watcher, provider events)
    /// reach, weakly. The store itself is never the target of a weak reference: that would give it
    /// a side table, and every retain of it (each evaluation through an OpenFeature client takes
    /// some) would take the runtime's slow path.
    final class Core: Sendable {
        fileprivate let sources: [Source]
        let selector: FlagSelector?
        /// The flags of every source merged (later sources win), rebuilt after each reload.
        fileprivate let state: Lock<Merged>
        let changed = CapabilityChangeSignal()
        let broadcast = EventBroadcast<FlagStoreEvent>()
        /// Counts the merges since the store began: raised after each new merge is in place, so a
        /// reader that took it before evaluating knows its answer is stale once it has moved.
        let generation = Lock<UInt64>(0)

        fileprivate init(sources: [Source], selector: FlagSelector?) {
            self.sources = sources
            self.selector = selector
            state = Lock(FlagStore.merge(sources, selector: selector))
        }

        /// A file's reload: merge again, then tell subscribers and capabilities.
        fileprivate func apply(_ event: ReloadingValue<FlagSet, ConfigurationError>.Event, from path: String) {
            switch event {
            case .loaded(let flagSet):
                let merged = FlagStore.merge(sources, selector: selector)
                state.withLock { $0 = merged }
                generation.withLock { $0 += 1 }
                broadcast.send(.loaded(file: path, flagKeys: flagSet.flags.keys.sorted()))
            case .failed(let error):
                broadcast.send(.failed(error))
            }
            changed.notify()
        }

        /// A remote source's change: merge again, then tell subscribers and capabilities.
        fileprivate func apply(_ event: RemoteFlagSourceEvent, from location: String) {
            let merged = FlagStore.merge(sources, selector: selector)
            state.withLock { $0 = merged }
            generation.withLock { $0 += 1 }
            switch event {
            case .loaded(let flagSet): broadcast.send(.loaded(file: location, flagKeys: flagSet.flags.keys.sorted()))
            case .confirmed: broadcast.send(.confirmed(source: location))
            case .failed(let error): broadcast.send(.failed(error))
            case .expired(let reason): broadcast.send(.expired(source: location, reason: reason))
            }
            changed.notify()
        }

        fileprivate func reload(_ paths: [String]) {
            for case .file(let path, let value) in sources where paths.contains(path) { value.reload() }
        }

        /// The files that currently fail to load (``FlagStore/loadFailures``).
        var loadFailures: [ConfigurationError] {
            sources.compactMap { source in
                if case .remote = source { return nil }
                return source.problem
            }
        }
    }

    /// The text a file had when last read, so an event that changed nothing is not reported.
    private final class LastText: Sendable {
        let text = Lock<String?>(nil)
    }

    let core: Core
    private var sources: [Source] { core.sources }
    /// The remote sources among them, which are stopped with the store: apart, so that a store
    /// without any (most) does not walk its sources' enumeration when it goes.
    private let remotes: [any RemoteFlagSource]
    private let baseContext: FlagEvaluationContext
    private let baseContextProblem: String?
    private let queue = DispatchQueue(label: "FeatureFlags.FlagStore")
    private let watcher = Lock<DirectoryWatcher?>(nil)
    /// Why the files are not followed although the store was asked to watch them (inotify
    /// unavailable, its per-user limit reached, a directory that cannot be watched), or nil.
    public var watchFailure: ConfigurationError? { watchProblem.withLock { $0 } }
    private let watchProblem = Lock<ConfigurationError?>(nil)
    /// Notified after every change, for capabilities built on this store.
    package var changed: CapabilityChangeSignal { core.changed }
    /// The store's own word on its initialization as an OpenFeature provider (FlagStore+Provider).
    let lifecycleEvents = EventBroadcast<ProviderEvent>()

    /// Loads `files` now and, when `watchesFiles` is true, follows their changes.
    /// - Parameters:
    ///   - flagSets: Flags already read (inline in a policy, for example), before the files in precedence.
    ///   - files: Paths of flag definition files (`.json`, `.yaml` or `.yml`; otherwise the
    ///     content decides). Later files override earlier ones.
    ///   - watchesFiles: Whether to reload files when they change (inotify).
    ///   - context: The context every evaluation starts from (empty by default; on Linux,
    ///     `FlagEvaluationContext.host` from `LinuxBackends` describes this process).
    public convenience init(
        flagSets: [FlagSet] = [], files: [String], watchesFiles: Bool = true,
        context: FlagEvaluationContext = FlagEvaluationContext()
    ) {
        self.init(
            sources: flagSets.map(FlagSource.flags) + files.map(FlagSource.file), watchesFiles: watchesFiles,
            context: context)
    }

    /// Loads `sources` now, in precedence order (a later source's definition of a flag replaces
    /// an earlier one's, inline or file alike) and, when `watchesFiles` is true, follows the files' changes.
    /// - Parameters:
    ///   - sources: Flag sets and flag definition files, lowest precedence first.
    ///   - watchesFiles: Whether to reload files when they change (inotify).
    ///   - pollsServices: Whether remote sources are asked again on their own schedule; nil for
    ///     the same as `watchesFiles`. Either way their flags expire by their own limit.
    ///   - context: The context every evaluation starts from.
    ///   - selector: When given, the store evaluates only the flags it selects (one flag set, or
    ///     one source's flags); others are not found.
    ///   - fractionalBucketing: How `fractional` buckets in the files' rules (flagd's string hash
    ///     by default). Flag sets given already read, and remote sources, keep what they were read with.
    public init(
        sources: [FlagSource], watchesFiles: Bool = true, pollsServices: Bool? = nil,
        context: FlagEvaluationContext = FlagEvaluationContext(), selector: FlagSelector? = nil,
        fractionalBucketing: FractionalBucketing = .stringHash
    ) {
        let relay = Relay()
        let resolved: [Source] = sources.map { source in
            switch source {
            case .flags(let flagSet): .fixed(flagSet)
            case .file(let path):
                .file(
                    path: path,
                    flags: ReloadingValue(
                        load: Self.reader(for: path, bucketing: fractionalBucketing),
                        onEvent: { event in relay.core?.apply(event, from: path) }))
            case .remote(let source): .remote(source)
            case .http(let settings):
                .unloadable(
                    ConfigurationError(
                        "flags from \(settings.url) cannot be fetched: this program has no HTTP client for flag sources (give the store RemoteFlags' HTTPFlagSource)",
                        file: settings.location?.file ?? settings.url))
            }
        }
        let files = sources.compactMap(\.path)
        let core = Core(sources: resolved, selector: selector)
        self.core = core
        baseContext = context
        baseContextProblem = context.firstInvalidAttribute()
        relay.connect(core)
        var remotes: [any RemoteFlagSource] = []
        for case .remote(let source) in resolved {
            remotes.append(source)
            source.start(follow: pollsServices ?? watchesFiles) { event in
                relay.core?.apply(event, from: source.location)
            }
        }
        self.remotes = remotes
        if watchesFiles, !files.isEmpty {
            // One watcher for every file; a file that cannot be watched is still read now and on
            // reloadAll(), and the store says it is not followed (watchFailure).
            do throws(ConfigurationError) {
                let watcher = try DirectoryWatcher(files: files, queue: queue) { [weak core] changed in
                    core?.reload(changed)
                }
                self.watcher.withLock { $0 = watcher }
            } catch {
                watchProblem.withLock { $0 = error }
            }
        }
        core.reload(files)
    }

    /// Reads `path`: its flags, or why they do not load; unchanged text is not read twice.
    private static func reader(for path: String, bucketing: FractionalBucketing)
        -> @Sendable () -> ReloadingValue<FlagSet, ConfigurationError>.Outcome
    {
        let last = LastText()
        return {
            let text: String
            do throws(ConfigurationError) {
                text = try ConfigurationFile.text(path)
            } catch {
                // Forgotten, so the same text coming back is read again and clears the failure.
                last.text.withLock { $0 = nil }
                return .failed(error)
            }
            let previous = last.text.withLock { memory -> String? in
                defer { memory = text }
                return memory
            }
            if previous == text { return .unchanged }
            do throws(ConfigurationError) {
                return .loaded(try FlagSet.parse(text, file: path, bucketing: bucketing))
            } catch {
                return .failed(error)
            }
        }
    }

    deinit {
        for source in remotes { source.stop() }
    }

    /// Serves the given flag sets, in order (later ones override earlier ones); nothing is watched.
    public convenience init(_ flagSets: [FlagSet], context: FlagEvaluationContext = FlagEvaluationContext()) {
        self.init(flagSets: flagSets, files: [], watchesFiles: false, context: context)
    }

    /// The flags in effect, by key.
    public var flags: [String: FlagDefinition] { core.state.withLock { $0.flags } }

    /// Moves whenever the flags change (a file or a source read again): an evaluation made
    /// after reading it is current for as long as it has not moved.
    package var generation: UInt64 { core.generation.withLock { $0 } }

    /// Whether any flag of `keys`, as defined now, may read the clock (`$flagd.timestamp`): its
    /// value can change with time alone, with no change of ``generation``.
    package func readsClock(_ keys: some Sequence<String>) -> Bool {
        core.state.withLock { merged in keys.contains { merged.flags[$0]?.readsTimestamp == true } }
    }

    /// How each remote source stands, in precedence order.
    public var remoteSources: [RemoteFlagSourceStatus] {
        sources.compactMap { source in
            switch source {
            case .remote(let remote): remote.status
            case .unloadable(let error):
                RemoteFlagSourceStatus(location: error.file, condition: .loading, problem: error)
            case .fixed, .file: nil
            }
        }
    }

    /// Asks every remote source once now, returning when each has answered or failed. A command
    /// that evaluates once, with a store that does not follow its sources, calls this first with
    /// `onlyIfDue` (a source whose flags are younger than its interval is not asked).
    public func refreshRemoteSources(onlyIfDue: Bool = false) async {
        // Most stores follow no service: no task group to make (a process's start pays for its first).
        guard sources.contains(where: { if case .remote = $0 { true } else { false } }) else { return }
        await withTaskGroup(of: Void.self) { group in
            for case .remote(let source) in sources { group.addTask { await source.refresh(onlyIfDue: onlyIfDue) } }
        }
    }

    /// The files that currently fail to load, and why (their last good flags stay in effect), and
    /// flag services the store cannot follow. A flag service that cannot be reached is not a load
    /// failure: see ``remoteSources``.
    public var loadFailures: [ConfigurationError] { core.loadFailures }

    /// Everything wrong in the files: those that fail to load (``loadFailures``), then the
    /// problems of the flags in effect (``FlagSet/problems``: broken flags and mistakes flagd
    /// tolerates). Empty when every file passes strict validation.
    public var problems: [ConfigurationError] {
        loadFailures + sources.flatMap { $0.flags?.problems ?? [] }
    }

    /// Every load and failure from now on, as they happen.
    public func events() -> AsyncStream<FlagStoreEvent> {
        core.broadcast.subscribe()
    }

    /// Stops following files and flag services now: when this returns, the file watcher's inotify
    /// instance is closed and every remote source is stopped. The flags in effect stay, and
    /// ``reloadAll()`` still reads the files. A store that is released does the same by itself,
    /// its watcher closing shortly after.
    public func shutdown() {
        watcher.withLock { watcher in
            defer { watcher = nil }
            return watcher
        }?.stop()
        for case .remote(let source) in sources { source.stop() }
    }

    /// Reads every file again now (a change seen by the watcher does this by itself).
    public func reloadAll() {
        for case .file(_, let value) in sources { value.reload() }
    }

    fileprivate static func merge(_ sources: [Source], selector: FlagSelector?) -> Merged {
        var merged = Merged()
        for source in sources {
            if let selector, !selector.admits(source: source.location) { continue }
            let (flags, expiry) = source.contents
            guard let flagSet = flags else { continue }
            var selected = flagSet.flags
            if let selector {
                selected = [:]
                for flag in flagSet.definitions where selector.admits(flag) { selected[flag.key] = flag }
            }
            merged.flags.merge(selected) { _, later in later }
            if let expiry {
                for key in selected.keys { merged.expired[key] = expiry }
            } else if !merged.expired.isEmpty {
                for key in selected.keys { merged.expired[key] = nil }
            }
        }
        for (key, flag) in merged.flags where merged.expired[key] == nil {
            if flag.isEnabled, !flag.hasTargeting, flag.problem == nil, let value = flag.defaultValue {
                merged.staticValues[key] = value
            }
        }
        return merged
    }

    // MARK: Evaluation

    /// Evaluates `key` as `T`, with details, never throwing: a problem is `defaultValue` with
    /// reason ``FlagEvaluationReason/error`` and an error code. `context` is laid over the store's.
    ///
    /// This is the provider's side: no hooks run. A ``FlagClient`` evaluates through hooks and the
    /// API's, client's and call's contexts.
    public func evaluation<T: FlagValueType>(
        _ key: String, default defaultValue: T, context: FlagEvaluationContext? = nil
    ) -> FlagEvaluationDetails<T> {
        evaluated(key, default: defaultValue, context: context)
    }

    private func evaluated<T: FlagValueType>(
        _ key: String, default defaultValue: T, context: FlagEvaluationContext?
    ) -> FlagEvaluationDetails<T> {
        let (found, expiry) = core.state.withLock { ($0.flags[key], $0.expired.isEmpty ? nil : $0.expired[key]) }
        guard let flag = found else {
            if let unloaded = sources.first(where: { $0.flags == nil && $0.problem != nil })?.problem {
                let code: FlagErrorCode = unloaded.location == nil ? .general : .parseError
                return FlagEvaluationDetails(
                    flagKey: key, value: defaultValue, reason: .error, errorCode: code,
                    errorMessage: "flag \"\(key)\" not found, and \(unloaded.file) could not be loaded: \(unloaded)")
            }
            return FlagEvaluationDetails(
                flagKey: key, value: defaultValue, reason: .error, errorCode: .flagNotFound,
                errorMessage: "no flag \"\(key)\""
                    + (core.selector.map { " selected by \($0)" } ?? "")
                    + NameSuggestion.didYouMean(key, among: core.state.withLock { Array($0.flags.keys) }))
        }
        if let expiry {
            return FlagEvaluationDetails(
                flagKey: key, value: defaultValue, reason: .error, errorCode: .general,
                errorMessage: "flag \"\(key)\" cannot be evaluated: \(expiry)", flagMetadata: flag.metadata)
        }
        // Resolved before the type is checked: a rule that names no variant is reported as such,
        // and the caller's default (a disabled flag, no default variant) is never type-checked.
        let resolution = FlagResolver.resolve(
            flag, overlay: context, base: baseContext, baseProblem: baseContextProblem, now: { Int(time(nil)) })
        guard let value = resolution.value else {
            return FlagEvaluationDetails(
                flagKey: key, value: defaultValue, variant: nil, reason: resolution.reason,
                errorCode: resolution.errorCode, errorMessage: resolution.errorMessage, flagMetadata: flag.metadata)
        }
        guard let typed = T(flagValue: value) else {
            return FlagEvaluationDetails(
                flagKey: key, value: defaultValue, reason: .error, errorCode: .typeMismatch,
                errorMessage:
                    "variant \"\(resolution.variant ?? "")\" of flag \"\(key)\" is a \(value.typeName) (\(value)), not \(T.requested)",
                flagMetadata: flag.metadata)
        }
        return FlagEvaluationDetails(
            flagKey: key, value: typed, variant: resolution.variant, reason: resolution.reason,
            flagMetadata: flag.metadata)
    }

    /// The value alone. A static flag (enabled, loaded, no targeting, a default variant of the
    /// type asked for) is answered from its definition, without building the details;
    /// anything else goes the whole way, so the value is always the one the details carry.
    public func value<T: FlagValueType>(
        _ key: String, default defaultValue: T, context: FlagEvaluationContext? = nil
    ) -> T {
        valued(key, default: defaultValue, context: context)
    }

    private func valued<T: FlagValueType>(_ key: String, default defaultValue: T, context: FlagEvaluationContext?) -> T
    {
        let (value, known) = core.state.withLock { state -> (FlagValue?, Bool) in
            if let value = state.staticValues[key] { return (value, true) }
            return (nil, state.flags.index(forKey: key) != nil)
        }
        if let value, let typed = T(flagValue: value) { return typed }
        // A missing flag is the caller's default, without building the message that says so.
        guard known else { return defaultValue }
        return evaluated(key, default: defaultValue, context: context).value
    }

    /// The value of `key` when it is static, the one its details would carry; nil for anything
    /// else, which a client then evaluates the whole way (so that an error, a type mismatch
    /// included, is reported and logged).
    func staticValue(_ key: String) -> FlagValue? {
        core.state.withLock { $0.staticValues[key] }
    }

    // Concrete overloads of the generic two, for the four scalar types: a generic call from another
    // module is not specialized, and a Boolean evaluation took 110 ns that way instead of 58.
    // Overload resolution picks these; each is the generic one specialized here.

    /// Evaluates a Boolean flag (``value(_:default:context:)`` for `Bool`).
    public func value(_ key: String, default defaultValue: Bool, context: FlagEvaluationContext? = nil) -> Bool {
        valued(key, default: defaultValue, context: context)
    }

    /// Evaluates a string flag (``value(_:default:context:)`` for `String`).
    public func value(_ key: String, default defaultValue: String, context: FlagEvaluationContext? = nil) -> String {
        valued(key, default: defaultValue, context: context)
    }

    /// Evaluates an integer flag (``value(_:default:context:)`` for `Int`).
    public func value(_ key: String, default defaultValue: Int, context: FlagEvaluationContext? = nil) -> Int {
        valued(key, default: defaultValue, context: context)
    }

    /// Evaluates a number flag (``value(_:default:context:)`` for `Double`).
    public func value(_ key: String, default defaultValue: Double, context: FlagEvaluationContext? = nil) -> Double {
        valued(key, default: defaultValue, context: context)
    }

    /// Evaluates a Boolean flag with details (``evaluation(_:default:context:)`` for `Bool`).
    public func evaluation(_ key: String, default defaultValue: Bool, context: FlagEvaluationContext? = nil)
        -> FlagEvaluationDetails<Bool>
    { evaluated(key, default: defaultValue, context: context) }

    /// Evaluates a string flag with details (``evaluation(_:default:context:)`` for `String`).
    public func evaluation(_ key: String, default defaultValue: String, context: FlagEvaluationContext? = nil)
        -> FlagEvaluationDetails<String>
    { evaluated(key, default: defaultValue, context: context) }

    /// Evaluates an integer flag with details (``evaluation(_:default:context:)`` for `Int`).
    public func evaluation(_ key: String, default defaultValue: Int, context: FlagEvaluationContext? = nil)
        -> FlagEvaluationDetails<Int>
    { evaluated(key, default: defaultValue, context: context) }

    /// Evaluates a number flag with details (``evaluation(_:default:context:)`` for `Double`).
    public func evaluation(_ key: String, default defaultValue: Double, context: FlagEvaluationContext? = nil)
        -> FlagEvaluationDetails<Double>
    { evaluated(key, default: defaultValue, context: context) }

    /// Evaluates a flag of any type, with details: no type mismatch is possible.
    public func valueDetails(_ key: String, default defaultValue: FlagValue, context: FlagEvaluationContext? = nil)
        -> FlagEvaluationDetails<FlagValue>
    {
        let typed: FlagEvaluationDetails<AnyFlagValue> = evaluated(
            key, default: AnyFlagValue(defaultValue), context: context)
        return typed.map(\.value)
    }
}

/// Any flag value, for evaluations that do not ask for a type.
private struct AnyFlagValue: FlagValueType, Sendable {
    static var requested: String { "any value" }
    let value: FlagValue
    init(_ value: FlagValue) { self.value = value }
    init?(flagValue: FlagValue) { value = flagValue }
}
