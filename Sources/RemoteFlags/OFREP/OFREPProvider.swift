import Capabilities
import ConfigurationFiles
public import FeatureFlags
import Locking
import Plumbing

/// An OpenFeature provider that evaluates remotely, over the OpenFeature Remote Evaluation
/// Protocol (OFREP, open-feature/protocol's `service/openapi.yaml`), against any service that
/// speaks it: flagd, GO Feature Flag, flipt and others.
///
/// ```swift
/// let provider = try OFREPProvider(environment: ProcessInfo.processInfo.environment)
/// await OpenFeatureAPI.shared.setProvider(provider)
/// let export = OpenFeatureAPI.shared.client().boolean("new-export", default: false)
/// ```
///
/// - The static context (the one ``initialize(context:)`` is given) is evaluated in bulk
///   (`POST /ofrep/v1/evaluate/flags`) and cached; evaluations with that context (or none) are
///   answered from the cache without a request. The bulk evaluation is asked again every
///   `pollInterval` with `If-None-Match` when the service gave an ETag (a 304 keeps the cache;
///   a service that sends none, such as flagd, gets the whole answer each time), and a 429's
///   `Retry-After` (seconds, an HTTP date or an ISO 8601 time; at most an hour) pushes it back.
/// - Any other context is a single-flag evaluation (`POST /ofrep/v1/evaluate/flags/{key}`),
///   made while the caller waits (at most `timeout`); a 429 pauses those until its `Retry-After`.
/// - Values are type-checked here: a value of another type is TYPE_MISMATCH, with the caller's
///   default. A success without `value` means "use the code default" (the protocol's ADR 0006):
///   the caller's default, with the service's reason and variant.
/// - Errors are OpenFeature's codes: 400 the body's `errorCode` (PARSE_ERROR,
///   TARGETING_KEY_MISSING, INVALID_CONTEXT, else GENERAL), 404 FLAG_NOT_FOUND, 401 and 403
///   GENERAL ("unauthorized", "forbidden"; for the bulk evaluation the provider is then fatal),
///   anything else or no answer GENERAL. A context with attributes that could not be built
///   completely (`FlagEvaluationContext.incompleteAttributes`) is never sent: INVALID_CONTEXT.
public final class OFREPProvider: FeatureProvider {
    /// Where the service is, and how to ask it.
    public let configuration: OFREPConfiguration

    /// The longest pause a service's `Retry-After` can impose.
    static let longestPause: Double = 3600

    private struct State: Sendable {
        var initialized = false
        var staticContext: FlagEvaluationContext?
        var cache: [String: OFREPEvaluation] = [:]
        var entityTag: String?
        var stale = false
        var fatal: String?
        var pausedUntil: Double?
        var poller: Task<Void, Never>?
    }

    private let state = Lock(State())
    private let connection: Result<HTTPConnection, ConfigurationError>
    private let broadcast = EventBroadcast<ProviderEvent>()

    /// A provider for `configuration`; nothing is requested until it is initialized or asked.
    public init(_ configuration: OFREPConfiguration) {
        self.configuration = configuration
        do throws(ConfigurationError) {
            connection = .success(try HTTPConnection(certificateAuthorityFile: configuration.certificateAuthorityFile))
        } catch {
            connection = .failure(error)
        }
    }

    /// A provider configured from OFREP's environment variables (``OFREPConfiguration/init(environment:)``).
    public convenience init(environment: [String: String]) throws(OFREPConfigurationError) {
        self.init(try OFREPConfiguration(environment: environment))
    }

    deinit {
        state.withLock { $0.poller?.cancel() }
    }

    public var metadata: ProviderMetadata { ProviderMetadata(name: "OFREP \(configuration.endpoint)") }

    /// Announces its own lifecycle: ready or error, before ``initialize(context:)`` ends.
    public var emitsLifecycleEvents: Bool { true }

    /// Evaluates every flag for `context` (the static context) and starts polling; announces
    /// `PROVIDER_READY` before it returns, `PROVIDER_ERROR` before it throws (2.8.2, 2.8.3).
    /// - Throws: `ProviderError` when the bulk evaluation fails (fatal for 401 and 403).
    public func initialize(context: FlagEvaluationContext) async throws {
        state.withLock { $0.staticContext = context }
        if case .failed(let message, let fatal) = await refreshBulk() {
            // A fatal failure was announced as it happened, with PROVIDER_FATAL.
            if !fatal { broadcast.send(ProviderEvent(.error, message: message, errorCode: .general)) }
            throw ProviderError(message, isFatal: fatal)
        }
        defer { broadcast.send(ProviderEvent(.ready)) }
        guard let interval = configuration.pollInterval else { return }
        let poller = Task { [weak self] in
            while !Task.isCancelled {
                let pause = self?.state.withLock { $0.pausedUntil }.map { $0 - WallClock.secondsSince1970 } ?? 0
                let seconds = max(Double(interval.components.seconds), pause)
                try? await Task.sleep(for: .seconds(seconds))
                guard let self, !Task.isCancelled else { return }
                if case .failed(_, true) = await self.refreshBulk() { return }
            }
        }
        // A second initialization replaces the first one's polling.
        state.withLock { state in
            state.poller?.cancel()
            state.poller = poller
        }
    }

    public func shutdown() async {
        state.withLock { state in
            state.poller?.cancel()
            state.poller = nil
        }
    }

    public func providerEvents() -> AsyncStream<ProviderEvent> { broadcast.subscribe() }

    // MARK: Bulk evaluation

    /// Asks for the bulk evaluation now (polling does this every `pollInterval`), with the ETag
    /// when there is one; a failure keeps the cached evaluations and makes the provider stale.
    public func refresh() async {
        await refreshBulk()
    }

    enum BulkOutcome: Equatable {
        case loaded
        case unchanged
        case failed(String, fatal: Bool)
    }

    /// Asks for every flag's evaluation for the static context; keeps the cache on any failure.
    @discardableResult
    func refreshBulk() async -> BulkOutcome {
        let outcome = await requestBulk()
        switch outcome {
        case .loaded, .unchanged:
            let recovered = state.withLock { state -> Bool in
                defer { state.stale = false }
                return state.stale
            }
            if recovered { broadcast.send(ProviderEvent(.ready)) }
        case .failed(let message, let fatal):
            if fatal {
                state.withLock { $0.fatal = message }
                broadcast.send(ProviderEvent(.error, message: message, isFatal: true))
            } else {
                let first = state.withLock { state -> Bool in
                    defer { state.stale = true }
                    return !state.stale && state.initialized
                }
                if first { broadcast.send(ProviderEvent(.stale, message: message)) }
            }
        }
        return outcome
    }

    private func requestBulk() async -> BulkOutcome {
        let connection: HTTPConnection
        switch self.connection {
        case .success(let made): connection = made
        case .failure(let error): return .failed(error.description, fatal: true)
        }
        let (context, tag) = state.withLock { ($0.staticContext ?? FlagEvaluationContext(), $0.entityTag) }
        if let problem = Self.incompleteness(context) { return .failed(problem, fatal: false) }
        var request = HTTPRequest(
            url: configuration.endpoint.trimmingTrailingSlashes + "/ofrep/v1/evaluate/flags", method: .post,
            timeout: configuration.timeout, maxBodyBytes: TrustedFile.sizeLimit)
        addHeaders(&request)
        if let tag { request.headers.append(("If-None-Match", tag)) }
        request.body = Array(Self.body(context).utf8)
        let response: HTTPResponse
        switch await connection.send(request) {
        case .success(let answer): response = answer
        case .failure(let error): return .failed("cannot reach the service: \(error)", fatal: false)
        }
        let code = response.status
        let body = response.text
        switch code {
        case 200:
            guard let evaluations = Self.bulkEvaluations(body) else {
                return .failed("the bulk evaluation is not an OFREP answer ({\"flags\": [...]})", fatal: false)
            }
            let changed = state.withLock { state -> [String] in
                let keys = Set(state.cache.keys).union(evaluations.keys)
                let changed = keys.filter { state.cache[$0] != evaluations[$0] }.sorted()
                state.cache = evaluations
                state.entityTag = response.header("ETag")
                // The first evaluations are no change: the initialization's READY announces them.
                defer { state.initialized = true }
                return state.initialized ? changed : []
            }
            if !changed.isEmpty { broadcast.send(ProviderEvent(.configurationChanged, flagsChanged: changed)) }
            return .loaded
        case 304:
            let known = state.withLock { $0.initialized }
            return known ? .unchanged : .failed("HTTP 304 before any evaluation was loaded", fatal: false)
        case 400:
            let (code, details) = Self.failure(body)
            return .failed("the service refused the bulk evaluation: \(code.rawValue) \(details)", fatal: false)
        case 401, 403:
            return .failed(
                "the service answered \(code == 401 ? "unauthorized" : "forbidden") (HTTP \(code))", fatal: true)
        case 429:
            let until = pause(response.header("Retry-After"))
            return .failed("rate limited by the service until \(Self.time(until))", fatal: false)
        default:
            return .failed("HTTP \(code) \(HTTPResponse.reasonPhrase(code))", fatal: false)
        }
    }

    static func bulkEvaluations(_ text: String) -> [String: OFREPEvaluation]? {
        guard let root = try? JSONDocumentReader.read(text, file: "OFREP"),
            case .array(let entries)? = root.member("flags")?.value.kind
        else { return nil }
        var evaluations: [String: OFREPEvaluation] = [:]
        for entry in entries {
            // An entry that is neither a success nor a failure is left out: its flag is then not found.
            if let (key, evaluation) = OFREPEvaluation.read(entry) { evaluations[key] = evaluation }
        }
        return evaluations
    }

    // MARK: Evaluation

    private func details<T: FlagValueType & Sendable>(
        _ key: String, default defaultValue: T, context: FlagEvaluationContext?
    ) -> FlagEvaluationDetails<T> {
        let (initialized, staticContext, cached, fatal) = state.withLock {
            ($0.initialized, $0.staticContext, $0.cache[key], $0.fatal)
        }
        if let fatal {
            return FlagEvaluationDetails(
                flagKey: key, value: defaultValue, reason: .error, errorCode: .providerFatal, errorMessage: fatal)
        }
        if initialized, context == nil || context == staticContext {
            guard let cached else {
                return FlagEvaluationDetails(
                    flagKey: key, value: defaultValue, reason: .error, errorCode: .flagNotFound,
                    errorMessage: "the service evaluated no flag \"\(key)\"")
            }
            return cached.details(key: key, default: defaultValue)
        }
        return evaluate(key, context: context ?? staticContext ?? FlagEvaluationContext())
            .details(key: key, default: defaultValue)
    }

    /// One flag for one context, while the caller waits.
    private func evaluate(_ key: String, context: FlagEvaluationContext) -> OFREPEvaluation {
        if let problem = Self.incompleteness(context) { return .failure(.invalidContext, problem) }
        let now = WallClock.secondsSince1970
        if let until = state.withLock({ $0.pausedUntil }), now < until {
            return .failure(.general, "rate limited by the service until \(Self.time(until))")
        }
        let connection: HTTPConnection
        switch self.connection {
        case .success(let made): connection = made
        case .failure(let error): return .failure(.general, error.description)
        }
        let url = configuration.endpoint.trimmingTrailingSlashes + "/ofrep/v1/evaluate/flags/" + Self.pathSegment(key)
        var request = HTTPRequest(
            url: url, method: .post, timeout: configuration.timeout, maxBodyBytes: TrustedFile.sizeLimit)
        addHeaders(&request)
        request.body = Array(Self.body(context).utf8)
        let response: HTTPResponse
        switch connection.perform(request) {
        case .success(let answer): response = answer
        case .failure(let error): return .failure(.general, "cannot reach the service: \(error)")
        }
        let text = response.text
        let code = response.status
        switch code {
        case 200:
            guard let root = try? JSONDocumentReader.read(text, file: "OFREP"),
                let (answered, evaluation) = OFREPEvaluation.read(root)
            else { return .failure(.parseError, "the service's answer for \"\(key)\" is not an OFREP evaluation") }
            guard answered == key else {
                return .failure(.parseError, "asked for \"\(key)\", the service answered for another flag")
            }
            return evaluation
        case 400:
            let (code, details) = Self.failure(text)
            return .failure(code == .flagNotFound ? .general : code, details)
        case 404:
            return .failure(.flagNotFound, Self.failure(text).details)
        case 401: return .failure(.general, "unauthorized")
        case 403: return .failure(.general, "forbidden")
        case 429:
            let until = pause(response.header("Retry-After"))
            return .failure(.general, "rate limited by the service until \(Self.time(until))")
        default:
            return .failure(.general, "HTTP \(code) \(HTTPResponse.reasonPhrase(code))")
        }
    }

    // MARK: Helpers

    private func addHeaders(_ request: inout HTTPRequest) {
        request.headers.append(("Content-Type", "application/json"))
        request.headers.append(("Accept", "application/json"))
        for header in configuration.headers { request.setHeader(header.name, header.value) }
    }

    /// Why `context` must not be sent: an attribute that could not be built completely would
    /// reach the service shorter than it is (a list of groups missing one, say), and a number
    /// JSON cannot carry would make the request invalid.
    static func incompleteness(_ context: FlagEvaluationContext) -> String? {
        if let (name, reason) = context.incompleteAttributes.min(by: { $0.key < $1.key }) {
            return "the context attribute \"\(name)\" is incomplete (\(reason)): not sent to the service"
        }
        // JSON has no NaN or infinity: such a number would make the request body invalid.
        if let path = context.firstInvalidAttribute() {
            return "the context attribute \(path) is not finite (JSON has no NaN or infinity): not sent to the service"
        }
        return nil
    }

    /// `{"context": {...}}`, with `targetingKey` among the attributes as OFREP has it.
    static func body(_ context: FlagEvaluationContext) -> String {
        var members = context.attributes
        if let key = context.targetingKey { members["targetingKey"] = .string(key) }
        return FlagValue.structure(["context": .structure(members)]).description
    }

    /// The error code and details of a failure body; GENERAL when the body says nothing usable.
    static func failure(_ text: String) -> (code: FlagErrorCode, details: String) {
        guard let root = try? JSONDocumentReader.read(text, file: "OFREP") else {
            return (.general, "the service gave no error details")
        }
        var code = FlagErrorCode.general
        if case .string(let text)? = root.member("errorCode")?.value.kind, OFREPEvaluation.knownCodes.contains(text) {
            code = FlagErrorCode(rawValue: text)
        }
        var details = "the service gave no error details"
        if case .string(let text)? = root.member("errorDetails")?.value.kind { details = text }
        return (code, details)
    }

    /// Records a 429's `Retry-After` (seconds, an HTTP date, or an ISO 8601 time; one minute
    /// when absent or unreadable; at most ``longestPause``) and returns the time it ends.
    private func pause(_ header: String?) -> Double {
        let now = WallClock.secondsSince1970
        var until = header.flatMap { RetryAfter.end($0, now: now) } ?? now + 60
        until = min(max(until, now), now + Self.longestPause)
        state.withLock { $0.pausedUntil = until }
        return until
    }

    static func time(_ seconds: Double) -> String {
        FlagDate(secondsSince1970: seconds.rounded(.down)).description
    }

    private static let hexDigits = Array("0123456789ABCDEF".unicodeScalars)

    /// A flag key as one path segment: everything but RFC 3986's unreserved characters escaped.
    static func pathSegment(_ key: String) -> String {
        var segment = ""
        for byte in key.utf8 {
            let unreserved =
                (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte)
                || [0x2D, 0x2E, 0x5F, 0x7E].contains(byte)
            if unreserved {
                segment.unicodeScalars.append(UnicodeScalar(byte))
            } else {
                segment += "%" + String(hexDigits[Int(byte >> 4)]) + String(hexDigits[Int(byte & 0xF)])
            }
        }
        return segment
    }

    // MARK: FeatureProvider

    public func resolveBooleanEvaluation(_ key: String, default defaultValue: Bool, context: FlagEvaluationContext?)
        -> FlagEvaluationDetails<Bool>
    {
        details(key, default: defaultValue, context: context)
    }

    public func resolveStringEvaluation(_ key: String, default defaultValue: String, context: FlagEvaluationContext?)
        -> FlagEvaluationDetails<String>
    {
        details(key, default: defaultValue, context: context)
    }

    public func resolveIntegerEvaluation(_ key: String, default defaultValue: Int, context: FlagEvaluationContext?)
        -> FlagEvaluationDetails<Int>
    {
        details(key, default: defaultValue, context: context)
    }

    public func resolveDoubleEvaluation(_ key: String, default defaultValue: Double, context: FlagEvaluationContext?)
        -> FlagEvaluationDetails<Double>
    {
        details(key, default: defaultValue, context: context)
    }

    public func resolveObjectEvaluation(_ key: String, default defaultValue: FlagValue, context: FlagEvaluationContext?)
        -> FlagEvaluationDetails<FlagValue>
    {
        details(key, default: defaultValue, context: context)
    }
}

extension String {
    fileprivate var trimmingTrailingSlashes: String {
        var text = self
        while text.hasSuffix("/") { text.removeLast() }
        return text
    }
}
