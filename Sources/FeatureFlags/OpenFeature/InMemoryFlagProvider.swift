import Capabilities
import Locking
import Plumbing

/// A provider that serves values set in code: a test double for code that evaluates flags
/// through a ``FlagClient``, and for gates that must fail closed when a flag cannot be evaluated.
///
/// ```swift
/// let provider = InMemoryFlagProvider(["new-export": true])
/// provider.fail("color", with: .parseError)
/// await api.setProvider(provider)
/// ```
///
/// A value is served with reason `STATIC` and variant `"value"`; an absent key is
/// `FLAG_NOT_FOUND`; a value of another type than asked for is `TYPE_MISMATCH`.
public final class InMemoryFlagProvider: FeatureProvider {
    private enum Entry {
        case value(FlagValue)
        case failure(FlagErrorCode, String)
    }

    private let entries: Lock<[String: Entry]>
    private let broadcast = EventBroadcast<ProviderEvent>()

    /// A provider serving `values`, by flag key.
    public init(_ values: [String: FlagValue] = [:]) {
        entries = Lock(values.mapValues(Entry.value))
    }

    public var metadata: ProviderMetadata { ProviderMetadata(name: "In-memory Provider") }

    /// Announces its own lifecycle: ready, as it initializes.
    public var emitsLifecycleEvents: Bool { true }

    /// Has nothing to prepare: announces that it is ready (2.8.2).
    public func initialize(context: FlagEvaluationContext) async throws {
        broadcast.send(ProviderEvent(.ready))
    }

    /// Serves `value` for `key` from now on (nil removes the flag), and announces the change.
    public func set(_ key: String, to value: FlagValue?) {
        entries.withLock { $0[key] = value.map(Entry.value) }
        broadcast.send(ProviderEvent(.configurationChanged, flagsChanged: [key]))
    }

    /// Makes every evaluation of `key` fail with `code`, as a provider does for a broken flag.
    public func fail(_ key: String, with code: FlagErrorCode, message: String = "failure set by the test") {
        entries.withLock { $0[key] = .failure(code, message) }
        broadcast.send(ProviderEvent(.configurationChanged, flagsChanged: [key]))
    }

    /// Sends `event` to the API, as a real provider would on its own (a lost connection, say).
    public func send(_ event: ProviderEvent) {
        broadcast.send(event)
    }

    public func providerEvents() -> AsyncStream<ProviderEvent> { broadcast.subscribe() }

    private func details<T: FlagValueType>(_ key: String, _ defaultValue: T) -> FlagEvaluationDetails<T> {
        switch entries.withLock({ $0[key] }) {
        case nil:
            return FlagEvaluationDetails(
                flagKey: key, value: defaultValue, reason: .error, errorCode: .flagNotFound,
                errorMessage: "no flag \"\(key)\"")
        case .failure(let code, let message)?:
            return FlagEvaluationDetails(
                flagKey: key, value: defaultValue, reason: .error, errorCode: code, errorMessage: message)
        case .value(let value)?:
            guard let typed = T(flagValue: value) else {
                return FlagEvaluationDetails(
                    flagKey: key, value: defaultValue, reason: .error, errorCode: .typeMismatch,
                    errorMessage: "flag \"\(key)\" is a \(value.typeName) (\(value)), not \(T.requested)")
            }
            return FlagEvaluationDetails(flagKey: key, value: typed, variant: "value", reason: .static)
        }
    }

    public func resolveBooleanEvaluation(_ key: String, default value: Bool, context: FlagEvaluationContext?)
        -> FlagEvaluationDetails<Bool>
    { details(key, value) }
    public func resolveStringEvaluation(_ key: String, default value: String, context: FlagEvaluationContext?)
        -> FlagEvaluationDetails<String>
    { details(key, value) }
    public func resolveIntegerEvaluation(_ key: String, default value: Int, context: FlagEvaluationContext?)
        -> FlagEvaluationDetails<Int>
    { details(key, value) }
    public func resolveDoubleEvaluation(_ key: String, default value: Double, context: FlagEvaluationContext?)
        -> FlagEvaluationDetails<Double>
    { details(key, value) }
    public func resolveObjectEvaluation(_ key: String, default value: FlagValue, context: FlagEvaluationContext?)
        -> FlagEvaluationDetails<FlagValue>
    { details(key, value) }
}
