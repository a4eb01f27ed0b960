import Capabilities
public import ConfigurationFiles
import Dispatch
import FeatureFlags
import Synchronization

/// A policy kept current: the files are watched, a change takes effect without a restart,
/// and a change that does not load leaves the last good policy in force and says why.
public final class PolicyStore: Sendable {
    /// Something that happened to the policy.
    public enum Event: Sendable {
        /// The files were read again and the new policy is in force.
        case reloaded(files: [String])
        /// The files do not load; the last good policy stays in force.
        case failed(PolicyErrors)
    }

    private struct State {
        var current: LoadedPolicy?
        var problems: [ConfigurationError] = []
    }

    private let state = Mutex(State())
    private let load: @Sendable () throws(PolicyErrors) -> LoadedPolicy
    private let queue = DispatchQueue(label: "CapabilityPolicy.PolicyStore")
    private let watcher = Mutex<DirectoryWatcher?>(nil)
    private let broadcast = EventBroadcast<Event>()

    /// Loads the policy the search path finds and watches its roots, their `policy.d`
    /// directories and the files in them.
    public convenience init(searchPath: PolicySearchPath, options: PolicyOptions = PolicyOptions()) {
        self.init(
            watching: searchPath.directories.flatMap { [$0, $0 + "/policy.d"] },
            load: { () throws(PolicyErrors) -> LoadedPolicy in
                try LoadedPolicy(PolicyLoader.load(searchPath: searchPath), options: options)
            })
    }

    /// Loads the given files and watches them.
    public convenience init(files: [String], options: PolicyOptions = PolicyOptions()) {
        self.init(
            watching: [],
            files: files,
            load: { () throws(PolicyErrors) -> LoadedPolicy in
                try LoadedPolicy(PolicyLoader.load(files: files), options: options)
            })
    }

    private init(
        watching directories: [String], files: [String] = [],
        load: @escaping @Sendable () throws(PolicyErrors) -> LoadedPolicy
    ) {
        self.load = load
        reload()
        let watcher = try? DirectoryWatcher(files: files, directories: directories, queue: queue) { [weak self] _ in
            self?.reload()
        }
        self.watcher.withLock { $0 = watcher }
    }

    /// The policy in force: the last one that loaded, or nil when none ever did.
    public var current: LoadedPolicy? { state.withLock { $0.current } }

    /// Why the files do not load now (empty when they do).
    public var problems: [ConfigurationError] { state.withLock { $0.problems } }

    /// Every reload and failure from now on.
    public func events() -> AsyncStream<Event> {
        broadcast.subscribe()
    }

    /// Reads the files again now.
    public func reload() {
        let event: Event
        do throws(PolicyErrors) {
            let loaded = try load()
            state.withLock {
                $0.current = loaded
                $0.problems = []
            }
            event = .reloaded(files: loaded.policy.files)
        } catch {
            state.withLock { $0.problems = error.errors }
            event = .failed(error)
        }
        broadcast.send(event)
    }
}
