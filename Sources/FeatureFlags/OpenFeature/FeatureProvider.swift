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

    /// Whether the provider announces its own lifecycle events (OpenFeature 2.8.1–2.8.3, the
    /// opt-in of its appendix E): a `PROVIDER_READY` sent before `initialize` returns, a
    /// `PROVIDER_ERROR` before it throws (with ``FlagErrorCode/providerFatal`` when it can never
    /// recover). The API then takes the provider's state from its events alone, announces
    /// nothing for it, and `setProvider` returns once that event has arrived.
    ///
    /// The default, `false`, is the older way, which the specification deprecates: the API
    /// announces ready or error when `initialize` returns or throws (once, even if the provider
    /// also announced). A provider with nothing to initialize needs neither (2.8.5).
    var emitsLifecycleEvents: Bool { get }

    /// Prepares the provider once, before its first evaluation through ``OpenFeatureAPI``; a
    /// thrown error leaves it in the error state (a ``ProviderError`` can say it is fatal).
    func initialize(context: FlagEvaluationContext) async throws
    /// Prepares the provider for `domain` (nil for the default provider), as
    /// ``initialize(context:)`` does; the default calls that.
    func initialize(context: FlagEvaluationContext, domain: String?) async throws
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

    /// Records that something worth measuring happened (``FlagClient/track(_:context:details:)``).
    /// `context` is the merged evaluation context. The default does nothing: a provider that
    /// does not track need not say so.
    func track(_ eventName: String, context: FlagEvaluationContext?, details: TrackingEventDetails?)
}

extension FeatureProvider {
    public var hooks: [any FlagHook] { [] }
    public var emitsLifecycleEvents: Bool { false }
    public func initialize(context: FlagEvaluationContext) async throws {}
    public func initialize(context: FlagEvaluationContext, domain: String?) async throws {
        try await initialize(context: context)
    }
    public func shutdown() async {}
    public func providerEvents() -> AsyncStream<ProviderEvent> { AsyncStream { $0.finish() } }
    public func track(_ eventName: String, context: FlagEvaluationContext?, details: TrackingEventDetails?) {}
}

/// Why ``FlagClient/trackOrThrow(_:context:details:)`` (or ``FlagClient/track(_:context:details:)``, in its log) did not hand an event to the provider.
public struct TrackingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong.
    public let description: String

    init(_ description: String) { self.description = description }
}

/// What a tracking event carries besides its name (OpenFeature's tracking event details, 6.2):
/// an optional value (a price, a duration) and fields of any flag value.
///
/// ```swift
/// let purchase = TrackingEventDetails(value: 99.77, fields: ["currency": "EUR", "items": 3])
/// api.client().track("checkout", details: purchase)
/// ```
public struct TrackingEventDetails: Sendable, Hashable {
    /// The event's value, when it has one (6.2.1).
    public var value: Double?
    /// Anything else about the event, by name (6.2.2).
    public var fields: [String: FlagValue]

    /// Creates details.
    /// - Parameters:
    ///   - value: The event's value, when it has one.
    ///   - fields: Anything else about the event, by name.
    public init(value: Double? = nil, fields: [String: FlagValue] = [:]) {
        self.value = value
        self.fields = fields
    }
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
