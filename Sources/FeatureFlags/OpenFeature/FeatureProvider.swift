/// A source of flag evaluations, in OpenFeature's sense: the part a ``FlagClient`` asks.
///
/// ``FlagStore`` (flagd's file format, evaluated in process) is one provider;
/// ``InMemoryFlagProvider`` is a test double; a provider for a remote flag service (OFREP, a
/// flagd daemon) conforms the same way and serves from a synchronized cache, as flagd's
/// in-process providers do, so evaluation never waits on the network. Callers do not change when
/// the provider does.
///
/// Resolution never throws: a problem is the caller's default with reason
/// ``FlagEvaluationReason/error`` and an error code.
public protocol FeatureProvider: Sendable {
    /// The provider's name, for hooks and diagnostics.
    var metadata: ProviderMetadata { get }
    /// Hooks the provider runs on every evaluation, after the API's, the client's and the call's.
    var hooks: [any FlagHook] { get }

    /// Prepares the provider once, before its first evaluation through ``OpenFeatureAPI``; a
    /// thrown error leaves it in the error state (a ``ProviderError`` can say it is fatal).
    func initialize(context: FlagEvaluationContext) async throws
    /// Releases what ``initialize(context:)`` acquired.
    func shutdown() async
    /// What happens to the provider from now on: configuration changes, errors, staleness.
    func providerEvents() -> AsyncStream<ProviderEvent>

    /// Resolves a Boolean flag. `context` is the merged evaluation context. (Resolution names,
    /// as OpenFeature's providers have them: a ``FlagClient``'s `booleanDetails` runs hooks and
    /// merges contexts, this does neither.)
    func resolveBooleanEvaluation(_ key: String, default defaultValue: Bool, context: FlagEvaluationContext?)
        -> FlagEvaluationDetails<Bool>
    /// Resolves a string flag.
    func resolveStringEvaluation(_ key: String, default defaultValue: String, context: FlagEvaluationContext?)
        -> FlagEvaluationDetails<String>
    /// Resolves a number flag as an integer.
    func resolveIntegerEvaluation(_ key: String, default defaultValue: Int, context: FlagEvaluationContext?)
        -> FlagEvaluationDetails<Int>
    /// Resolves a number flag.
    func resolveDoubleEvaluation(_ key: String, default defaultValue: Double, context: FlagEvaluationContext?)
        -> FlagEvaluationDetails<Double>
    /// Resolves an object (JSON) flag.
    func resolveObjectEvaluation(_ key: String, default defaultValue: FlagValue, context: FlagEvaluationContext?)
        -> FlagEvaluationDetails<FlagValue>
}

extension FeatureProvider {
    public var hooks: [any FlagHook] { [] }
    public func initialize(context: FlagEvaluationContext) async throws {}
    public func shutdown() async {}
    public func providerEvents() -> AsyncStream<ProviderEvent> { AsyncStream { $0.finish() } }
}

/// What a provider says about itself.
///
/// ```swift
/// let metadata = ProviderMetadata(name: "flagd files")
/// print(metadata.name)
/// ```
public struct ProviderMetadata: Sendable, Hashable {
    /// The provider's name.
    public var name: String

    /// Creates metadata.
    public init(name: String) {
        self.name = name
    }
}

/// Why a provider could not initialize.
public struct ProviderError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public var message: String
    /// Whether the provider can never recover: evaluations then return `PROVIDER_FATAL`.
    public var isFatal: Bool

    /// Creates an error.
    public init(_ message: String, isFatal: Bool = false) {
        self.message = message
        self.isFatal = isFatal
    }

    public var description: String { message }
}
