import ConfigurationFiles

/// A flag store is an OpenFeature provider: flagd's file format, evaluated in process.
extension FlagStore: FeatureProvider {
    public var metadata: ProviderMetadata { ProviderMetadata(name: "flagd file") }

    /// Announces its own lifecycle: ready, or the error of its files, before ``initialize(context:)`` ends.
    public var emitsLifecycleEvents: Bool { true }

    /// Fails when a file cannot be read at all; the flags of the others (and that file's last
    /// good flags) are served all the same, as OpenFeature's error state allows. Announces
    /// `PROVIDER_READY` or `PROVIDER_ERROR` before it returns or throws (2.8.2, 2.8.3).
    public func initialize(context: FlagEvaluationContext) async throws {
        let failures = loadFailures
        guard failures.isEmpty else {
            let message = failures.map(\.description).joined(separator: "\n")
            lifecycleEvents.send(ProviderEvent(.error, message: message, errorCode: .general))
            throw ProviderError(message)
        }
        lifecycleEvents.send(ProviderEvent(.ready))
    }

    /// Its initialization's ready or error; then reloads become `PROVIDER_CONFIGURATION_CHANGED`;
    /// a file or remote source that stops loading makes the provider stale (its last good flags are
    /// served) until it loads again, and a remote source past its staleness limit is `PROVIDER_ERROR`.
    public func providerEvents() -> AsyncStream<ProviderEvent> {
        let upstream = events()
        let lifecycle = lifecycleEvents.subscribe()
        return AsyncStream { continuation in
            let announcer = Task {
                for await event in lifecycle { continuation.yield(event) }
            }
            // Weak: the store's own broadcast keeps this stream going, so a strong reference would keep the store alive.
            let forwarder = Task { [weak core] in
                var stale = false
                for await event in upstream {
                    switch event {
                    case .loaded(_, let keys):
                        continuation.yield(ProviderEvent(.configurationChanged, flagsChanged: keys))
                        if stale, core?.loadFailures.isEmpty == true {
                            stale = false
                            continuation.yield(ProviderEvent(.ready))
                        }
                    case .confirmed:
                        if stale, core?.loadFailures.isEmpty == true {
                            stale = false
                            continuation.yield(ProviderEvent(.ready))
                        }
                    case .failed(let error):
                        stale = true
                        continuation.yield(ProviderEvent(.stale, message: error.description))
                    case .expired(_, let reason):
                        // Its flags now answer with an error: OpenFeature's error state, until a refresh succeeds.
                        stale = true
                        continuation.yield(ProviderEvent(.error, message: reason))
                    }
                }
                announcer.cancel()
                continuation.finish()
            }
            continuation.onTermination = { _ in
                forwarder.cancel()
                announcer.cancel()
            }
        }
    }

    public func resolveBooleanEvaluation(_ key: String, default defaultValue: Bool, context: FlagEvaluationContext?)
        -> FlagEvaluationDetails<Bool>
    { evaluation(key, default: defaultValue, context: context) }

    public func resolveStringEvaluation(_ key: String, default defaultValue: String, context: FlagEvaluationContext?)
        -> FlagEvaluationDetails<String>
    { evaluation(key, default: defaultValue, context: context) }

    public func resolveIntegerEvaluation(_ key: String, default defaultValue: Int, context: FlagEvaluationContext?)
        -> FlagEvaluationDetails<Int>
    { evaluation(key, default: defaultValue, context: context) }

    public func resolveDoubleEvaluation(_ key: String, default defaultValue: Double, context: FlagEvaluationContext?)
        -> FlagEvaluationDetails<Double>
    { evaluation(key, default: defaultValue, context: context) }

    public func resolveObjectEvaluation(
        _ key: String, default defaultValue: FlagValue, context: FlagEvaluationContext?
    ) -> FlagEvaluationDetails<FlagValue> { evaluation(key, default: defaultValue, context: context) }
}
