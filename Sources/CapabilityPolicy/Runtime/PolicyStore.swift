import Capabilities
public import ConfigurationFiles
import Dispatch
import FeatureFlags
import Plumbing
import Synchronization

/// A policy kept current: the files are watched, a change takes effect without a restart,
/// and a change that does not load leaves the last good policy in force and says why.
///
/// ```swift
/// let store = PolicyStore(searchPath: PolicySearchPath(environment: env))
/// for await event in store.events() {
///     print(event)  // a reload, or the problems that kept the last good policy
/// }
/// ```
public final class PolicyStore: Sendable {
    /// Something that happened to the policy.
    public enum Event: Sendable {
        /// The files were read again and the new policy is in force.
        case reloaded(files: [String])
        /// The files do not load; the last good policy stays in force.
        case failed(PolicyErrors)
    }

    private let value: ReloadingValue<LoadedPolicy, PolicyErrors>
    /// Why the policy files are not followed (inotify unavailable, its per-user limit reached), or
    /// nil; `reload()` still reads them. The flag files' own: `current?.flags.watchFailure`.
    public let watchFailure: ConfigurationError?
    private let queue = DispatchQueue(label: "CapabilityPolicy.PolicyStore")
    private let broadcast: EventBroadcast<Event>

    /// Loads the policy the search path finds and watches its roots, their `policy.d`
    /// directories and the files in them. The files may declare the kinds of `environment`.
    public convenience init(
        searchPath: PolicySearchPath, environment: PolicyEnvironment = .portable,
        options: PolicyOptions = PolicyOptions()
    ) {
        self.init(
            watching: searchPath.directories.flatMap { [$0, $0 + "/policy.d"] },
            load: { () throws(PolicyErrors) -> LoadedPolicy in
                try LoadedPolicy(PolicyLoader.load(searchPath: searchPath, environment: environment), options: options)
            })
    }

    /// Loads the given files and watches them. The files may declare the kinds of `environment`.
    public convenience init(
        files: [String], environment: PolicyEnvironment = .portable, options: PolicyOptions = PolicyOptions()
    ) {
        self.init(
            watching: [],
            files: files,
            load: { () throws(PolicyErrors) -> LoadedPolicy in
                try LoadedPolicy(PolicyLoader.load(files: files, environment: environment), options: options)
            })
    }

    private init(
        watching directories: [String], files: [String] = [],
        load: @escaping @Sendable () throws(PolicyErrors) -> LoadedPolicy
    ) {
        let broadcast = EventBroadcast<Event>()
        self.broadcast = broadcast
        value = ReloadingValue(
            load: {
                do throws(PolicyErrors) {
                    return .loaded(try load())
                } catch {
                    return .failed(error)
                }
            },
            onEvent: { event in
                switch event {
                case .loaded(let policy): broadcast.send(.reloaded(files: policy.policy.files))
                case .failed(let errors): broadcast.send(.failed(errors))
                }
            })
        value.reload()
        // A root or policy.d created later is read at the next reload() (Docs/Policy.md).
        do throws(ConfigurationError) {
            try value.watch(files: files, directories: directories, queue: queue)
            watchFailure = nil
        } catch {
            watchFailure = error
        }
    }

    /// The policy in force: the last one that loaded, or nil when none ever did.
    public var current: LoadedPolicy? { value.current }

    /// Why the files do not load now (empty when they do).
    public var problems: [ConfigurationError] { value.problem?.errors ?? [] }

    /// Every reload and failure from now on.
    public func events() -> AsyncStream<Event> {
        broadcast.subscribe()
    }

    /// Reads the files again now.
    public func reload() {
        value.reload()
    }

    /// Stops following the policy files and the policy's flag files and services: when this
    /// returns, every inotify instance of the store is closed. The policy in force stays.
    public func shutdown() {
        value.stopWatching()
        value.current?.flags.shutdown()
    }
}
