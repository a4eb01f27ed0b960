import Capabilities
import Locking
public import Logging
import Plumbing
import Synchronization

/// OpenFeature's API object: the providers (a default one and one per domain), the global
/// evaluation context and hooks, and the clients that evaluate through them.
///
/// ```swift
/// let api = OpenFeatureAPI.shared
/// await api.setProvider(FlagStore(files: ["/etc/myservice/flags.json"]))
/// api.setEvaluationContext(FlagEvaluationContext(attributes: ["region": "eu-west"]))
/// let client = api.client()
/// if client.boolean("new-export", default: false, context: .init(attributes: ["tier": "gold"])) { enableNewExport() }
/// ```
///
/// ``shared`` is the process-wide instance OpenFeature's specification asks for; an isolated
/// instance, for tests and embedded uses that must not share it, comes from
/// `makeIsolatedOpenFeatureAPI()` in the `OpenFeatureIsolation` module (1.8). Until a provider
/// is set, evaluations return the caller's default with reason `DEFAULT`.
public final class OpenFeatureAPI: Sendable {
    /// The process-wide API.
    public static let shared = OpenFeatureAPI()

    /// A provider set for a domain or as the default, and where it stands (``ProviderLifecycle``).
    struct Binding: Sendable {
        var provider: any FeatureProvider
        /// Which `setProvider` bound it: events and initializations of a provider since replaced
        /// carry an older generation and change nothing.
        var generation: Int
        var lifecycle: ProviderLifecycle
        var listener: Task<Void, Never>?

        var status: ProviderStatus { lifecycle.status }
    }

    private struct State: Sendable {
        // Each change of what an evaluation reads counts in `version`, so that clients keep what
        // they read until it changes (FlagClient's plan) instead of copying it on every call.
        var defaultBinding = Binding(provider: NoOpFlagProvider(), generation: 0, lifecycle: .settled(.ready)) {
            didSet { version.changed() }
        }
        var domains: [String: Binding] = [:] { didSet { version.changed() } }
        var context = FlagEvaluationContext() { didSet { version.changed() } }
        var hooks: [any FlagHook] = [] { didSet { version.changed() } }
        var generation = 0
        var propagator: any TransactionContextPropagator = TaskLocalTransactionContextPropagator() {
            didSet { version.changed() }
        }
        var logger: Logger?
        let version: Version
    }

    /// A count of changes, read without the API's lock.
    final class Version: Sendable {
        private let count = Atomic<Int>(0)
        var current: Int { count.load(ordering: .acquiring) }
        func changed() { count.add(1, ordering: .releasing) }
    }

    /// Counts every change of what an evaluation reads.
    let version = Version()

    /// What a client reads once per evaluation.
    struct Snapshot {
        var provider: any FeatureProvider
        var status: ProviderStatus
        var context: FlagEvaluationContext
        var hooks: [any FlagHook]
        /// Asked for the transaction's context at each evaluation: it is the caller's task's.
        var propagator: any TransactionContextPropagator
    }

    private let state: Lock<State>
    private let broadcast = EventBroadcast<(domain: String?, event: ProviderEvent)>()

    /// Creates an API of its own, with no provider. Outside this package, an isolated instance
    /// comes from `makeIsolatedOpenFeatureAPI()` in `OpenFeatureIsolation` (1.8.3).
    package init() {
        state = Lock(State(version: version))
    }

    deinit {
        ProviderRegistry.unregisterAll(from: ObjectIdentifier(self))
    }

    // MARK: Providers

    /// Makes `provider` the default (or the one for `domain`), initializes it with the global
    /// context and returns when it is ready or has failed: for a provider that announces its own
    /// lifecycle (``FeatureProvider/emitsLifecycleEvents``), once its ready or error event has
    /// arrived, which 2.8.2 and 2.8.3 have it send before `initialize` ends. The provider it
    /// replaces is shut down.
    /// A provider instance that another API instance holds is refused: this API keeps what it had
    /// and reports a `PROVIDER_ERROR` event (1.8.4).
    public func setProvider(_ provider: any FeatureProvider, domain: String? = nil) async {
        // One provider instance serves one API instance (1.8.4): its state and events are that API's.
        if ProviderRegistry.isRegistered(provider, elsewhere: self) {
            var refusal = ProviderEvent(
                .error, message: "this provider instance is registered with another OpenFeature API instance",
                errorCode: .general)
            refusal.providerName = provider.metadata.name
            broadcast.send((domain, refusal))
            return
        }
        ProviderRegistry.register(provider, with: self)
        let emitsLifecycleEvents = provider.emitsLifecycleEvents
        let (generation, replaced, context) = state.withLock { state -> (Int, Binding?, FlagEvaluationContext) in
            state.generation += 1
            let binding = Binding(
                provider: provider, generation: state.generation,
                lifecycle: .starting(announcesItself: emitsLifecycleEvents))
            let old: Binding?
            if let domain {
                old = state.domains.updateValue(binding, forKey: domain)
            } else {
                old = state.defaultBinding
                state.defaultBinding = binding
            }
            return (state.generation, old, state.context)
        }
        if var replaced {
            replaced.listener?.cancel()
            if case .resume(let waiter) = replaced.lifecycle.released() { waiter?.resume() }
            if !isStillBound(replaced.provider) {
                ProviderRegistry.unregister(replaced.provider, from: self)
                await replaced.provider.shutdown()
            }
        }
        let events = provider.providerEvents()
        let listener = Task { [weak self] in
            for await event in events {
                self?.received(event, domain: domain, generation: generation)
            }
            self?.eventsEnded(domain: domain, generation: generation)
        }
        update(domain: domain, generation: generation) { binding in binding.listener = listener }
        let failure: (any Error)?
        do {
            try await provider.initialize(context: context, domain: domain)
            failure = nil
        } catch {
            failure = error
        }
        if emitsLifecycleEvents {
            // What initialization came to is the provider's to say (2.8.1–2.8.3); its return is
            // only the signal that the event is on its way.
            await awaitLifecycleEvent(domain: domain, generation: generation)
        } else {
            // The older way: the API announces ready or error for the initialization, unless the
            // provider did after all.
            let action = update(domain: domain, generation: generation) {
                $0.lifecycle.initializeReturned(failure: failure)
            }
            if case .announce(let event)? = action { emit(event, from: provider, domain: domain) }
        }
    }

    /// Waits for the ready or error event of a provider that announces its own lifecycle: at once
    /// when it came already, else until it does, its event stream ends, or the provider is replaced
    /// or shut down.
    private func awaitLifecycleEvent(domain: String?, generation: Int) async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let action = update(domain: domain, generation: generation) { $0.lifecycle.waitForLifecycleEvent(waiter) }
            // Replaced meanwhile (no binding of this generation) or nothing to wait for.
            if case .waiting? = action { return }
            waiter.resume()
        }
    }

    private func eventsEnded(domain: String?, generation: Int) {
        let action = update(domain: domain, generation: generation) { $0.lifecycle.eventsEnded() }
        if case .resume(let waiter)? = action { waiter?.resume() }
    }

    /// The provider evaluations for `domain` go to (the default one when the domain has none).
    public func provider(domain: String? = nil) -> any FeatureProvider {
        binding(domain: domain).provider
    }

    /// The state of the provider for `domain`.
    public func providerStatus(domain: String? = nil) -> ProviderStatus {
        binding(domain: domain).status
    }

    /// Shuts every provider down and resets the API (1.6.1, 1.6.2): the providers, the global
    /// context, the hooks and the transaction context propagator (back to
    /// ``TaskLocalTransactionContextPropagator``) are forgotten, every event stream handed out ends,
    /// and clients are `NOT_READY` (their evaluations return the default with `PROVIDER_NOT_READY`)
    /// until a provider is set again. The ``logger`` is kept: it is where the process logs, not
    /// state of the API's (the specification does not list it).
    public func shutdown() async {
        let bindings = state.withLock { state -> [Binding] in
            let all = [state.defaultBinding] + Array(state.domains.values)
            let (generation, logger) = (state.generation, state.logger)
            state = State(version: version)
            version.changed()
            state.defaultBinding.lifecycle = .settled(.notReady)
            state.logger = logger
            // Kept counting, so a provider still initializing from before cannot pass for a later one.
            state.generation = generation
            return all
        }
        broadcast.finishAll()
        for var binding in bindings {
            binding.listener?.cancel()
            if case .resume(let waiter) = binding.lifecycle.released() { waiter?.resume() }
            ProviderRegistry.unregister(binding.provider, from: self)
            await binding.provider.shutdown()
        }
    }

    // MARK: Context, hooks, clients, events

    /// Sets the global evaluation context, under every client's and every call's.
    public func setEvaluationContext(_ context: FlagEvaluationContext) {
        state.withLock { $0.context = context }
    }

    /// The global evaluation context.
    public var evaluationContext: FlagEvaluationContext { state.withLock { $0.context } }

    /// Where clients log an evaluation that went wrong (1.4.11): a warning naming the flag, the
    /// error code and the message, with the caller's default returned all the same. Nil (the
    /// default) logs nothing; a service passes the logger it bootstrapped.
    public var logger: Logger? {
        get { state.withLock { $0.logger } }
        set { state.withLock { $0.logger = newValue } }
    }

    /// Sets how the transaction's context travels with the work of one request (3.3.1.1). The
    /// default, ``TaskLocalTransactionContextPropagator``, carries it in a task-local value.
    public func setTransactionContextPropagator(_ propagator: any TransactionContextPropagator) {
        state.withLock { $0.propagator = propagator }
    }

    /// The context of the current transaction, between the global context and a client's in every
    /// evaluation made inside it (3.2.3), or nil outside one.
    public var transactionContext: FlagEvaluationContext? {
        state.withLock { $0.propagator }.currentContext()
    }

    /// Runs `operation` with `context` as the transaction's (3.3.1.2.1): every evaluation inside it,
    /// in this task and the tasks it starts, sees it. Swift's task-local values stand in for the
    /// specification's "set the transaction context": they are set for a scope, not assigned.
    ///
    /// ```swift
    /// try await api.withTransactionContext(FlagEvaluationContext(targetingKey: userID)) {
    ///     if api.client().boolean("new-export", default: false) { enableNewExport() }
    /// }
    /// ```
    /// - Parameters:
    ///   - context: The transaction's context.
    ///   - isolation: Where `operation` runs: the caller's isolation.
    ///   - operation: The transaction's work.
    @discardableResult
    public func withTransactionContext<Result>(
        _ context: FlagEvaluationContext, isolation: isolated (any Actor)? = #isolation,
        operation: () async throws -> Result
    ) async rethrows -> Result {
        let propagator = state.withLock { $0.propagator }
        return try await propagator.withContext(context, isolation: isolation, operation: operation)
    }

    /// Runs synchronous `operation` with `context` as the transaction's (see the asynchronous form).
    /// - Parameters:
    ///   - context: The transaction's context.
    ///   - operation: The transaction's work.
    @discardableResult
    public func withTransactionContext<Result>(
        _ context: FlagEvaluationContext, operation: () throws -> Result
    ) rethrows -> Result {
        let propagator = state.withLock { $0.propagator }
        return try propagator.withContext(context, operation: operation)
    }

    /// Adds hooks that run for every evaluation, before the client's.
    public func addHooks(_ hooks: [any FlagHook]) {
        state.withLock { $0.hooks += hooks }
    }

    /// Removes every global hook.
    public func clearHooks() {
        state.withLock { $0.hooks = [] }
    }

    /// A client for `domain`: it evaluates with the domain's provider, or the default one.
    public func client(
        domain: String? = nil, context: FlagEvaluationContext = FlagEvaluationContext(), hooks: [any FlagHook] = []
    )
        -> FlagClient
    {
        FlagClient(api: self, domain: domain, context: context, hooks: hooks)
    }

    /// Every provider's events from now on. A provider already ready (or failed, or stale)
    /// reports that state first, so a late subscriber does not wait for an event already sent.
    public func events() -> AsyncStream<ProviderEvent> {
        events { _ in true }
    }

    // MARK: Internals

    func snapshot(domain: String?) -> Snapshot {
        // Only what an evaluation reads, so the lock copies no more than it must.
        let (provider, status, context, hooks, propagator) = state.withLock { state in
            if let domain, let binding = state.domains[domain] {
                return (binding.provider, binding.status, state.context, state.hooks, state.propagator)
            }
            return (
                state.defaultBinding.provider, state.defaultBinding.status, state.context, state.hooks, state.propagator
            )
        }
        return Snapshot(provider: provider, status: status, context: context, hooks: hooks, propagator: propagator)
    }

    /// Events of the provider a client of `domain` uses: the domain's own provider while it has
    /// one, the default provider otherwise, decided for each event as the binding changes (5.1.2, 5.1.3).
    func events(forClientOf domain: String?) -> AsyncStream<ProviderEvent> {
        // Strong: the stream's consumer keeps the API it listens to (a weak reference would slow
        // every retain of the API, evaluations included).
        events { [self] source in
            let bound = domain.map { domain in state.withLock { $0.domains[domain] != nil } } ?? false
            return bound ? source == domain : source == nil
        }
    }

    private func events(where accepts: @escaping @Sendable (String?) -> Bool) -> AsyncStream<ProviderEvent> {
        let upstream = broadcast.subscribe()
        let current = state.withLock { state -> [(String?, Binding)] in
            [(nil, state.defaultBinding)] + state.domains.map { ($0.key, $0.value) }
        }
        return AsyncStream { continuation in
            for (domain, binding) in current where accepts(domain) {
                if let event = Self.event(for: binding.status) {
                    var event = event
                    event.providerName = binding.provider.metadata.name
                    continuation.yield(event)
                }
            }
            let forwarder = Task {
                for await (domain, event) in upstream where accepts(domain) { continuation.yield(event) }
                continuation.finish()
            }
            continuation.onTermination = { _ in forwarder.cancel() }
        }
    }

    private static func event(for status: ProviderStatus) -> ProviderEvent? {
        switch status {
        case .notReady: nil
        case .ready: ProviderEvent(.ready)
        case .error: ProviderEvent(.error)
        case .fatal: ProviderEvent(.error, isFatal: true)
        case .stale: ProviderEvent(.stale)
        default: nil  // a state this API does not know has no event of its own
        }
    }

    private func binding(domain: String?) -> Binding {
        state.withLock { state in domain.flatMap { state.domains[$0] } ?? state.defaultBinding }
    }

    /// Applies `change` to the binding of `domain` if it is still the one set at `generation`, and
    /// returns its result; nil when the binding was replaced since.
    private func update<Action>(
        domain: String?, generation: Int, _ change: (inout Binding) -> Action
    ) -> Action? {
        state.withLock { state -> Action? in
            if let domain {
                guard var binding = state.domains[domain], binding.generation == generation else { return nil }
                let action = change(&binding)
                state.domains[domain] = binding
                return action
            }
            guard state.defaultBinding.generation == generation else { return nil }
            return change(&state.defaultBinding)
        }
    }

    private func received(_ event: ProviderEvent, domain: String?, generation: Int) {
        // A provider replaced since says nothing any more: its events are not passed on.
        let received = update(domain: domain, generation: generation) { ($0.lifecycle.received(event), $0.provider) }
        guard let (action, provider) = received, case .passOn(let waiter) = action else { return }
        emit(event, from: provider, domain: domain)
        waiter?.resume()
    }

    private func emit(_ event: ProviderEvent, from provider: any FeatureProvider, domain: String?) {
        var event = event
        event.providerName = provider.metadata.name
        broadcast.send((domain, event))
    }

    /// Whether `provider` (a class instance) is still bound to some domain or as the default.
    private func isStillBound(_ provider: any FeatureProvider) -> Bool {
        guard type(of: provider) is AnyClass else { return false }
        let identity = ObjectIdentifier(provider as AnyObject)
        return state.withLock { state in
            ([state.defaultBinding] + Array(state.domains.values)).contains { binding in
                type(of: binding.provider) is AnyClass && ObjectIdentifier(binding.provider as AnyObject) == identity
            }
        }
    }
}

/// The provider in place before any is set: every evaluation is the caller's default.
struct NoOpFlagProvider: FeatureProvider {
    var metadata: ProviderMetadata { ProviderMetadata(name: "No-op Provider") }

    private func none<T>(_ key: String, _ value: T) -> FlagEvaluationDetails<T> {
        FlagEvaluationDetails(flagKey: key, value: value, reason: .default)
    }

    func resolveBooleanEvaluation(_ key: String, default value: Bool, context: FlagEvaluationContext?)
        -> FlagEvaluationDetails<
            Bool
        >
    { none(key, value) }
    func resolveStringEvaluation(_ key: String, default value: String, context: FlagEvaluationContext?)
        -> FlagEvaluationDetails<
            String
        >
    { none(key, value) }
    func resolveIntegerEvaluation(_ key: String, default value: Int, context: FlagEvaluationContext?)
        -> FlagEvaluationDetails<
            Int
        >
    { none(key, value) }
    func resolveDoubleEvaluation(_ key: String, default value: Double, context: FlagEvaluationContext?)
        -> FlagEvaluationDetails<
            Double
        >
    { none(key, value) }
    func resolveObjectEvaluation(_ key: String, default value: FlagValue, context: FlagEvaluationContext?)
        -> FlagEvaluationDetails<FlagValue>
    { none(key, value) }
}

/// Which API instance each provider instance (a class) is registered with, so that one is never
/// registered with two (1.8.4). Value-type providers have no identity and are not tracked. Kept
/// by identity, not by weak reference (a weak reference would slow every retain of the API): an
/// API lets go of its entries when it shuts down or is released.
enum ProviderRegistry {
    private static let owners = Lock<[ObjectIdentifier: ObjectIdentifier]>([:])

    /// Whether `provider` is registered with an API other than `api`.
    static func isRegistered(_ provider: any FeatureProvider, elsewhere than: OpenFeatureAPI) -> Bool {
        guard let identity = identity(of: provider) else { return false }
        return owners.withLock { $0[identity].map { $0 != ObjectIdentifier(than) } ?? false }
    }

    static func register(_ provider: any FeatureProvider, with api: OpenFeatureAPI) {
        guard let identity = identity(of: provider) else { return }
        owners.withLock { $0[identity] = ObjectIdentifier(api) }
    }

    static func unregister(_ provider: any FeatureProvider, from api: OpenFeatureAPI) {
        guard let identity = identity(of: provider) else { return }
        owners.withLock { owners in
            if owners[identity] == ObjectIdentifier(api) { owners[identity] = nil }
        }
    }

    /// Forgets every provider registered with the API whose identity is `api` (it is being released).
    static func unregisterAll(from api: ObjectIdentifier) {
        owners.withLock { owners in owners = owners.filter { $0.value != api } }
    }

    private static func identity(of provider: any FeatureProvider) -> ObjectIdentifier? {
        type(of: provider) is AnyClass ? ObjectIdentifier(provider as AnyObject) : nil
    }
}
