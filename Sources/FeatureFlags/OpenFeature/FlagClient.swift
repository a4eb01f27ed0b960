import Locking
import Logging

/// Evaluates flags through an ``OpenFeatureAPI``'s provider, with OpenFeature's evaluation
/// context merging and hooks. Get one from ``OpenFeatureAPI/client(domain:context:hooks:)``.
///
/// The context an evaluation sees is the API's global context, overlaid by the transaction's
/// (``OpenFeatureAPI/withTransactionContext(_:isolation:operation:)``), the client's, the call's,
/// then by what `before` hooks return: later levels win, attribute by attribute,
/// and so does their targeting key. Evaluation never throws; problems come back as the caller's
/// default with reason `ERROR` and an error code (`PROVIDER_NOT_READY` before the provider has
/// initialized, `PROVIDER_FATAL` after it failed for good).
public final class FlagClient: Sendable {
    /// The domain the client evaluates in; nil for the default provider.
    public let domain: String?
    private let api: OpenFeatureAPI
    private let settings: Lock<Settings>

    private struct Settings {
        var context: FlagEvaluationContext
        var hooks: [any FlagHook]
        /// What evaluations read, while the API has not changed since it was made.
        var plan: Plan?
    }

    /// The API's and this client's part of every evaluation, read once and kept until either
    /// changes: an evaluation then takes one lock and one reference, not a copy of each part.
    private final class Plan: Sendable {
        /// The API's change count this plan was read at.
        let version: Int
        let provider: any FeatureProvider
        let status: ProviderStatus
        let global: FlagEvaluationContext
        let client: FlagEvaluationContext
        /// The global and client contexts merged, as an evaluation outside any transaction sees them.
        let merged: FlagEvaluationContext?
        /// The API's hooks, then the client's.
        let hooks: [any FlagHook]
        let propagator: any TransactionContextPropagator
        /// The provider, when it is a flag store: it answers a static flag's value without its
        /// details, and only when nothing can observe the evaluation (no hooks of the API's or the
        /// client's) and the provider is asked at all.
        let staticValues: FlagStore?

        init(version: Int, snapshot: OpenFeatureAPI.Snapshot, client: Settings) {
            self.version = version
            provider = snapshot.provider
            status = snapshot.status
            global = snapshot.context
            self.client = client.context
            merged = FlagClient.merge(snapshot.context, nil, client.context, nil)
            hooks = snapshot.hooks + client.hooks
            propagator = snapshot.propagator
            let asksProvider = snapshot.status != .notReady && snapshot.status != .fatal
            staticValues = asksProvider && hooks.isEmpty ? snapshot.provider as? FlagStore : nil
        }

        /// The context the provider is given for an evaluation or a tracking event: the global
        /// context, the current transaction's, the client's, then the call's (3.2.3, 6.1.3).
        func context(over invocation: FlagEvaluationContext?) -> FlagEvaluationContext? {
            guard let transaction = propagator.currentContext() else {
                return FlagClient.overlay(invocation, on: merged)
            }
            return FlagClient.merge(global, transaction, client, invocation)
        }
    }

    init(api: OpenFeatureAPI, domain: String?, context: FlagEvaluationContext, hooks: [any FlagHook]) {
        self.api = api
        self.domain = domain
        settings = Lock(Settings(context: context, hooks: hooks))
    }

    /// The client's evaluation context, between the global one and each call's.
    public var evaluationContext: FlagEvaluationContext { settings.withLock { $0.context } }

    /// Replaces the client's evaluation context.
    public func setEvaluationContext(_ context: FlagEvaluationContext) {
        settings.withLock {
            $0.context = context
            $0.plan = nil
        }
    }

    /// Adds hooks that run for every evaluation of this client, after the API's.
    public func addHooks(_ hooks: [any FlagHook]) {
        settings.withLock {
            $0.hooks += hooks
            $0.plan = nil
        }
    }

    /// The plan in force: the kept one while the API has not changed, else one read now.
    private func plan() -> Plan {
        // Read before the API's state: a change after this makes the next call read again.
        let version = api.version.current
        return settings.withLock { settings in
            if let plan = settings.plan, plan.version == version { return plan }
            let plan = Plan(version: version, snapshot: api.snapshot(domain: domain), client: settings)
            settings.plan = plan
            return plan
        }
    }

    /// A value asked for without its details: with no hook to see the evaluation, a static flag
    /// is answered by the provider's shortcut; anything else (an error to log included) the whole way.
    private func value<T: FlagValueType>(
        _ key: String, _ defaultValue: T, _ invocation: FlagEvaluationContext?, _ options: FlagEvaluationOptions,
        details: () -> FlagEvaluationDetails<T>
    ) -> T {
        let plan = plan()
        if let store = plan.staticValues, options.hooks.isEmpty, store.hooks.isEmpty,
            let value = store.staticValue(key), let typed = T(flagValue: value)
        {
            return typed
        }
        return details().value
    }

    /// The state of the provider this client uses.
    public var providerStatus: ProviderStatus { api.providerStatus(domain: domain) }

    /// The events of the provider this client uses, its current state first.
    public func events() -> AsyncStream<ProviderEvent> { api.events(forClientOf: domain) }

    // MARK: Evaluation

    /// Evaluates a Boolean flag, with details.
    public func booleanDetails(
        _ key: String, default defaultValue: Bool, context: FlagEvaluationContext? = nil,
        options: FlagEvaluationOptions = FlagEvaluationOptions()
    ) -> FlagEvaluationDetails<Bool> {
        evaluate(key, .boolean, defaultValue, FlagValue.bool, context, options) {
            $0.resolveBooleanEvaluation(key, default: defaultValue, context: $1)
        }
    }

    /// Evaluates a Boolean flag.
    public func boolean(
        _ key: String, default defaultValue: Bool, context: FlagEvaluationContext? = nil,
        options: FlagEvaluationOptions = FlagEvaluationOptions()
    ) -> Bool {
        value(key, defaultValue, context, options) {
            booleanDetails(key, default: defaultValue, context: context, options: options)
        }
    }

    /// Evaluates a string flag, with details.
    public func stringDetails(
        _ key: String, default defaultValue: String, context: FlagEvaluationContext? = nil,
        options: FlagEvaluationOptions = FlagEvaluationOptions()
    ) -> FlagEvaluationDetails<String> {
        evaluate(key, .string, defaultValue, FlagValue.string, context, options) {
            $0.resolveStringEvaluation(key, default: defaultValue, context: $1)
        }
    }

    /// Evaluates a string flag.
    public func string(
        _ key: String, default defaultValue: String, context: FlagEvaluationContext? = nil,
        options: FlagEvaluationOptions = FlagEvaluationOptions()
    ) -> String {
        value(key, defaultValue, context, options) {
            stringDetails(key, default: defaultValue, context: context, options: options)
        }
    }

    /// Evaluates a number flag as an integer, with details.
    public func integerDetails(
        _ key: String, default defaultValue: Int, context: FlagEvaluationContext? = nil,
        options: FlagEvaluationOptions = FlagEvaluationOptions()
    ) -> FlagEvaluationDetails<Int> {
        evaluate(
            key, .integer, defaultValue, { FlagValue.number(Double($0)) }, context, options,
            { $0.resolveIntegerEvaluation(key, default: defaultValue, context: $1) })
    }

    /// Evaluates a number flag as an integer.
    public func integer(
        _ key: String, default defaultValue: Int, context: FlagEvaluationContext? = nil,
        options: FlagEvaluationOptions = FlagEvaluationOptions()
    ) -> Int {
        value(key, defaultValue, context, options) {
            integerDetails(key, default: defaultValue, context: context, options: options)
        }
    }

    /// Evaluates a number flag, with details.
    public func doubleDetails(
        _ key: String, default defaultValue: Double, context: FlagEvaluationContext? = nil,
        options: FlagEvaluationOptions = FlagEvaluationOptions()
    ) -> FlagEvaluationDetails<Double> {
        evaluate(key, .double, defaultValue, FlagValue.number, context, options) {
            $0.resolveDoubleEvaluation(key, default: defaultValue, context: $1)
        }
    }

    /// Evaluates a number flag.
    public func double(
        _ key: String, default defaultValue: Double, context: FlagEvaluationContext? = nil,
        options: FlagEvaluationOptions = FlagEvaluationOptions()
    ) -> Double {
        value(key, defaultValue, context, options) {
            doubleDetails(key, default: defaultValue, context: context, options: options)
        }
    }

    /// Evaluates an object (JSON) flag, with details.
    public func objectDetails(
        _ key: String, default defaultValue: FlagValue, context: FlagEvaluationContext? = nil,
        options: FlagEvaluationOptions = FlagEvaluationOptions()
    ) -> FlagEvaluationDetails<FlagValue> {
        evaluate(
            key, .object, defaultValue, { $0 }, context, options,
            { $0.resolveObjectEvaluation(key, default: defaultValue, context: $1) })
    }

    /// Evaluates an object (JSON) flag.
    public func object(
        _ key: String, default defaultValue: FlagValue, context: FlagEvaluationContext? = nil,
        options: FlagEvaluationOptions = FlagEvaluationOptions()
    ) -> FlagValue {
        objectDetails(key, default: defaultValue, context: context, options: options).value
    }

    // MARK: The one evaluation path

    private func evaluate<T: Sendable>(
        _ key: String, _ kind: FlagValueKind, _ defaultValue: T, _ wrap: (T) -> FlagValue,
        _ invocation: FlagEvaluationContext?, _ options: FlagEvaluationOptions,
        _ resolve: (any FeatureProvider, FlagEvaluationContext?) -> FlagEvaluationDetails<T>
    ) -> FlagEvaluationDetails<T> {
        let snapshot = plan()
        let merged = snapshot.context(over: invocation)
        let providerHooks = snapshot.provider.hooks
        let hooks =
            snapshot.hooks.isEmpty && options.hooks.isEmpty && providerHooks.isEmpty
            ? [] : snapshot.hooks + options.hooks + providerHooks

        func failure(_ code: FlagErrorCode, _ message: String) -> FlagEvaluationDetails<T> {
            FlagEvaluationDetails(
                flagKey: key, value: defaultValue, reason: .error, errorCode: code, errorMessage: message)
        }
        func ask(_ context: FlagEvaluationContext?) -> FlagEvaluationDetails<T> {
            if let (code, message) = Self.shortCircuit(snapshot) { return failure(code, message) }
            return Self.enforced(resolve(snapshot.provider, context), key: key, default: defaultValue)
        }
        // Without hooks nothing can observe the evaluation: no hook context, no erasure.
        guard !hooks.isEmpty else { return logged(ask(merged)) }

        var hookContext = HookContext(
            flagKey: key, kind: kind, defaultValue: wrap(defaultValue),
            evaluationContext: merged ?? FlagEvaluationContext(),
            clientDomain: domain, providerMetadata: snapshot.provider.metadata)
        // Each hook's own data, the same object through all of its stages of this evaluation (4.3.2).
        let data = hooks.map { _ in HookData() }
        func context(of index: Int) -> HookContext {
            var context = hookContext
            context.hookData = data[index]
            return context
        }
        let hints = options.hints
        var details: FlagEvaluationDetails<T>
        var problem: (any Error)?
        do {
            for (index, hook) in hooks.enumerated() {
                if let added = try hook.before(context(of: index), hints: hints) {
                    hookContext.evaluationContext = added.merged(over: hookContext.evaluationContext)
                }
            }
            details = ask(Self.isEmpty(hookContext.evaluationContext) ? nil : hookContext.evaluationContext)
            if let code = details.errorCode {
                problem = FlagEvaluationError(code: code, message: details.errorMessage)
            } else {
                do {
                    let erased = details.map(wrap)
                    for index in hooks.indices.reversed() {
                        try hooks[index].after(context(of: index), details: erased, hints: hints)
                    }
                } catch {
                    problem = HookFailure(stage: "after", underlying: error)
                    details = failure(.general, "\(problem!)")
                }
            }
        } catch {
            problem = HookFailure(stage: "before", underlying: error)
            details = failure(.general, "\(problem!)")
        }
        if let problem {
            for index in hooks.indices.reversed() {
                hooks[index].error(context(of: index), error: problem, hints: hints)
            }
        }
        let erased = details.map(wrap)
        for index in hooks.indices.reversed() {
            hooks[index].finally(context(of: index), details: erased, hints: hints)
        }
        return logged(details)
    }

    /// Logs an evaluation that came back with an error code (1.4.11), when the API has a logger;
    /// the lock is taken only then, so a good evaluation pays nothing for it.
    private func logged<T>(_ details: FlagEvaluationDetails<T>) -> FlagEvaluationDetails<T> {
        guard let code = details.errorCode, let logger = api.logger else { return details }
        let detail = details.errorMessage.map { ": \($0)" } ?? ""
        logger.warning(
            "flag \(details.flagKey) evaluated to the caller's default: \(code)\(detail)",
            metadata: ["flag": "\(details.flagKey)", "domain": "\(domain ?? "")"])
        return details
    }

    /// Why the provider is not asked at all, for an evaluation or a tracking event: not ready yet
    /// (1.7.6) or failed for good (1.7.7); nil when it is asked.
    private static func shortCircuit(_ snapshot: Plan) -> (FlagErrorCode, String)? {
        switch snapshot.status {
        case .notReady: (.providerNotReady, "provider \(snapshot.provider.metadata.name) is not ready")
        case .fatal: (.providerFatal, "provider \(snapshot.provider.metadata.name) failed for good")
        default: nil
        }
    }

    /// What the specification has the SDK guarantee whatever the provider put in its answer: the
    /// key asked for (1.4.5), and on an error code the caller's default with reason `ERROR`
    /// (1.4.8, 1.4.9, 1.4.10), no variant, the provider's code, message and metadata kept.
    private static func enforced<T>(
        _ details: consuming FlagEvaluationDetails<T>, key: String, default defaultValue: T
    ) -> FlagEvaluationDetails<T> {
        if details.errorCode != nil {
            details.value = defaultValue
            details.variant = nil
            details.reason = .error
        }
        // Most providers echo the key they were given: compared before assigning, no copy is made.
        if details.flagKey != key { details.flagKey = key }
        return details
    }

    // MARK: Tracking

    /// Tells the provider that the subject did something worth measuring (OpenFeature's tracking,
    /// 6.1): an experiment's goal reached, a purchase, a page seen. Returns nothing (6.1.1.1).
    ///
    /// The context the provider receives is merged as an evaluation's is (global, transaction,
    /// client, then `context`; 6.1.3). A provider that does not track does nothing (6.1.4). An
    /// event that is not passed on — an empty name (the specification's tracking scenarios), or a
    /// provider not ready or failed for good — is logged as a warning through the API's
    /// ``OpenFeatureAPI/logger``, as an evaluation's error is (1.4.11); a caller that must know
    /// calls ``trackOrThrow(_:context:details:)`` instead. (Its other invalid name, a null one,
    /// cannot be written in Swift.)
    ///
    /// ```swift
    /// let client = api.client()
    /// client.track("checkout", details: TrackingEventDetails(value: 99.77, fields: ["currency": "EUR"]))
    /// ```
    /// - Parameters:
    ///   - eventName: What happened; not empty.
    ///   - context: The evaluation context of this event, over the client's.
    ///   - details: A value and fields describing the event.
    public func track(
        _ eventName: String, context: FlagEvaluationContext? = nil, details: TrackingEventDetails? = nil
    ) {
        do {
            try trackOrThrow(eventName, context: context, details: details)
        } catch {
            api.logger?.warning(
                "tracking event '\(eventName)' was not passed on: \(error)",
                metadata: ["event": "\(eventName)", "domain": "\(domain ?? "")"])
        }
    }

    /// ``track(_:context:details:)`` for a caller that must know whether the provider was handed
    /// the event: throws why it was not (an empty name, a provider not ready or failed for good),
    /// and logs nothing.
    public func trackOrThrow(
        _ eventName: String, context: FlagEvaluationContext? = nil, details: TrackingEventDetails? = nil
    ) throws(TrackingError) {
        guard !eventName.isEmpty else { throw TrackingError("a tracking event needs a name") }
        let snapshot = plan()
        if let (_, message) = Self.shortCircuit(snapshot) { throw TrackingError(message) }
        snapshot.provider.track(eventName, context: snapshot.context(over: context), details: details)
    }

    /// Global, client and call contexts merged; nil when all are empty, so a provider can skip
    /// laying an empty context over its own.
    fileprivate static func merge(
        _ global: FlagEvaluationContext, _ transaction: FlagEvaluationContext?, _ client: FlagEvaluationContext,
        _ invocation: FlagEvaluationContext?
    ) -> FlagEvaluationContext? {
        var merged: FlagEvaluationContext? = isEmpty(global) ? nil : global
        if let transaction, !isEmpty(transaction) {
            merged = merged.map { transaction.merged(over: $0) } ?? transaction
        }
        if !isEmpty(client) { merged = merged.map { client.merged(over: $0) } ?? client }
        if let invocation, !isEmpty(invocation) { merged = merged.map { invocation.merged(over: $0) } ?? invocation }
        return merged
    }

    /// The call's context laid over the ones before it, merged already.
    fileprivate static func overlay(
        _ invocation: FlagEvaluationContext?, on base: FlagEvaluationContext?
    ) -> FlagEvaluationContext? {
        guard let invocation, !isEmpty(invocation) else { return base }
        return base.map { invocation.merged(over: $0) } ?? invocation
    }

    private static func isEmpty(_ context: FlagEvaluationContext) -> Bool {
        context.targetingKey == nil && context.attributes.isEmpty
    }
}
