import ConfigurationFiles
public import FeatureFlags
import Locking
import Plumbing

/// A flag definition document polled over HTTP, as flagd's HTTP sync does, for a `FlagStore`:
///
/// ```swift
/// let source = HTTPFlagSource(HTTPFlagSourceSettings(url: "https://flags.example.com/service.json"))
/// let flags = FlagStore(sources: [.file("/etc/myservice/flags.json"), .remote(source)])
/// ```
///
/// Each request is a GET with `Accept: application/json, application/yaml`, the `Authorization`
/// header from the settings' file when there is one, and `If-None-Match` with the last entity
/// tag; a 304 keeps the flags and makes them fresh. A 2xx body of at most 4 MiB is read as JSON or
/// YAML (by its `Content-Type`, else by the URL's extension, else by its content), with the same
/// lenient per-flag loading as a file: a broken flag is an error of its own. Any other status, a
/// body that does not load, a refused certificate or no answer in time keeps the last good flags
/// and reports the problem (the store's events: failed, then the provider goes stale). Redirects
/// are refused.
///
/// Past `maxStaleness` without a successful request, the flags answer with an error (a gate on
/// one is undecided), so a host cut off from the service cannot keep an old value for ever. With
/// `cacheFile`, the last good document is kept on disk (by root, rewritten after each success) and
/// read back at start through the trusted reader; its age counts against `maxStaleness`.
public final class HTTPFlagSource: RemoteFlagSource {
    /// What to poll, and how.
    public let settings: HTTPFlagSourceSettings

    public var location: String { settings.url }

    private struct State: Sendable {
        var flags: FlagSet?
        /// When the flags were last fetched or confirmed, by the wall clock (for people).
        var lastSuccess: Double?
        /// The same moment on the monotonic clock, which ages the flags: a clock step cannot make
        /// them younger than they are.
        var freshSince: ContinuousClock.Instant?
        var entityTag: String?
        /// The document as served, and its format, for the copy on disk.
        var document: (text: String, format: FlagFileFormat)?
        var problem: ConfigurationError?
        var copyProblem: String?
        var handler: (@Sendable (RemoteFlagSourceEvent) -> Void)?
        var tasks: [Task<Void, Never>] = []
        var reportedExpiry = false
    }

    private let state: Lock<State>
    private let connection: Result<HTTPConnection, ConfigurationError>
    private let keepsCopy: Bool
    /// The `Authorization` header read when the source was made, when it is not read per request.
    private let authorization: Result<String, ConfigurationError>?

    /// Reads the last good copy (when `settings.cacheFile` names one); nothing is requested until
    /// the store starts the source.
    public convenience init(_ settings: HTTPFlagSourceSettings) {
        self.init(settings, keepsCopy: true)
    }

    /// Reads the last good copy, and writes it after each success when `keepsCopy`. With
    /// `readsAuthorizationNow`, the authorization file is read here, once, rather than before each
    /// request. capctl's helper does both: it reads as root and then runs unprivileged, and
    /// capctl writes the copy from what the helper reports.
    package init(_ settings: HTTPFlagSourceSettings, keepsCopy: Bool, readsAuthorizationNow: Bool = false) {
        self.settings = settings
        self.keepsCopy = keepsCopy
        if readsAuthorizationNow, let file = settings.authorizationFile {
            authorization = Result { () throws(ConfigurationError) in try HTTPConnection.authorization(from: file) }
        } else {
            authorization = nil
        }
        var initial = State()
        do throws(ConfigurationError) {
            connection = .success(try HTTPConnection(certificateAuthorityFile: settings.certificateAuthorityFile))
        } catch {
            connection = .failure(error)
            initial.problem = error
        }
        if let path = settings.cacheFile, let copy = LastGoodCopy.read(path, url: settings.url) {
            switch copy {
            case .success(let copy):
                do throws(ConfigurationError) {
                    initial.flags = try FlagSet.parse(copy.document, file: settings.url, format: copy.format)
                    // Its age is read once, by the wall clock the copy was stamped with; from then on
                    // the flags age on the monotonic clock. A copy stamped after now (written before
                    // the clock was set back) has no age that can be trusted: not believed.
                    let age = WallClock.secondsSince1970 - copy.fetched
                    guard age >= -1 else {
                        throw ConfigurationError(
                            "it is stamped \(Int(-age)) s after now (the clock changed since it was written): not believed",
                            file: path)
                    }
                    initial.lastSuccess = copy.fetched
                    initial.freshSince = ContinuousClock.now - .milliseconds(Int64(min(max(age, 0), 1e9) * 1000))
                    initial.entityTag = copy.entityTag
                    initial.document = (copy.document, copy.format)
                } catch {
                    initial.flags = nil
                    initial.lastSuccess = nil
                    initial.document = nil
                    initial.entityTag = nil
                    initial.copyProblem = "the last good copy \(path) does not load: \(error)"
                }
            case .failure(let error):
                initial.copyProblem = error.description
            }
        }
        state = Lock(initial)
    }

    deinit {
        state.withLock { state in
            for task in state.tasks { task.cancel() }
        }
    }

    public var status: RemoteFlagSourceStatus {
        state.withLock { state in
            let condition: RemoteFlagSourceStatus.Condition
            var problem = state.problem
            if state.flags == nil {
                condition = .loading
            } else if let expiry = expiry(of: state) {
                condition = .expired
                problem = ConfigurationError(expiry, file: settings.url)
            } else {
                condition = state.problem == nil ? .fresh : .stale
            }
            return RemoteFlagSourceStatus(
                location: settings.url, condition: condition, flags: state.flags, lastSuccess: state.lastSuccess,
                entityTag: state.entityTag, problem: problem, note: state.copyProblem)
        }
    }

    /// The last good document as served (or as read from the copy on disk), and its format: what
    /// capctl's helper process hands over, for capctl to load itself.
    package var document: (text: String, format: FlagFileFormat)? {
        state.withLock { $0.document }
    }

    /// Why the flags are past their limit, or nil while they are not.
    private func expiry(of state: State) -> String? {
        guard state.flags != nil, let freshSince = state.freshSince else { return nil }
        let limit = Double(settings.maxStaleness.components.seconds)
        let age = Self.seconds(freshSince.duration(to: .now))
        guard age > limit else { return nil }
        let last = state.problem.map { "; last problem: \($0.message)" } ?? ""
        return
            "the flags from \(settings.url) were last refreshed \(Int(age)) s ago, past max-staleness (\(Int(limit)) s)\(last)"
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    public func start(follow: Bool, _ handler: @escaping @Sendable (RemoteFlagSourceEvent) -> Void) {
        state.withLock { state in
            state.handler = handler
            guard state.tasks.isEmpty else { return }
            // The limit holds for a store that does not follow its sources too: its flags still
            // expire on time, though nothing asks the service again.
            state.tasks = [Task { [weak self] in await self?.watchExpiry() }]
            if follow { state.tasks.append(Task { [weak self] in await self?.pollUntilCancelled() }) }
        }
    }

    public func refresh(onlyIfDue: Bool) async {
        if onlyIfDue {
            let interval = Double(settings.interval.components.seconds)
            let fresh = state.withLock { state in
                state.flags != nil && state.problem == nil
                    && state.freshSince.map { Self.seconds($0.duration(to: .now)) < interval } == true
            }
            if fresh { return }
        }
        await request()
    }

    public func stop() {
        state.withLock { state in
            state.handler = nil
            for task in state.tasks { task.cancel() }
            state.tasks = []
        }
    }

    // MARK: Polling

    /// Requests now, then after every jittered interval, until cancelled.
    private func pollUntilCancelled() async {
        while !Task.isCancelled {
            await request()
            let jitter = settings.jitter * Double.random(in: -1...1)
            let seconds = max(Double(settings.interval.components.seconds) * (1 + jitter), 0.1)
            try? await Task.sleep(for: .seconds(seconds))
        }
    }

    /// Sleeps until the flags would pass their limit and reports it once, until a success.
    private func watchExpiry() async {
        while !Task.isCancelled {
            let (reason, reported, freshSince) = state.withLock { state in
                (self.expiry(of: state), state.reportedExpiry, state.freshSince)
            }
            if let reason {
                if !reported {
                    state.withLock { $0.reportedExpiry = true }
                    report(.expired(reason))
                }
                // Expired: nothing changes until a request succeeds, which starts the watch again.
                try? await Task.sleep(for: settings.interval)
                continue
            }
            let deadline = (freshSince ?? .now) + settings.maxStaleness
            try? await Task.sleep(until: deadline + .milliseconds(10), clock: .continuous)
        }
    }

    /// One request, and what it changes.
    private func request() async {
        let connection: HTTPConnection
        switch self.connection {
        case .success(let made): connection = made
        case .failure(let error): return fail(error)
        }
        var request = HTTPRequest(url: settings.url, timeout: settings.timeout, maxBodyBytes: TrustedFile.sizeLimit)
        request.headers.append(("Accept", "application/json, application/yaml"))
        if let tag = state.withLock({ $0.flags == nil ? nil : $0.entityTag }) {
            request.headers.append(("If-None-Match", tag))
        }
        if let file = settings.authorizationFile {
            do throws(ConfigurationError) {
                let header: String
                if let authorization {
                    header = try authorization.get()
                } else {
                    header = try HTTPConnection.authorization(from: file)
                }
                request.headers.append(("Authorization", header))
            } catch {
                return fail(error)
            }
        }
        let response: HTTPResponse
        switch await connection.send(request) {
        case .success(let answer): response = answer
        case .failure(.cancelled): return
        case .failure(.tooLarge): return fail("the document is larger than \(TrustedFile.sizeLimit) bytes")
        case .failure(let error): return fail("cannot get the flags: \(error)")
        }
        switch response.status {
        case 304:
            confirm()
        case 200..<300:
            guard let text = String(validating: response.body, as: UTF8.self) else {
                return fail("the document is not valid UTF-8")
            }
            let format = Self.format(contentType: response.header("Content-Type"))
            let flags: FlagSet
            do throws(ConfigurationError) {
                flags = try FlagSet.parse(text, file: settings.url, format: format)
            } catch {
                return fail(error)
            }
            let resolved = format ?? FlagFileFormat(path: settings.url) ?? FlagFileFormat(sniffing: text)
            load(flags, text: text, format: resolved, entityTag: response.header("ETag"))
        default:
            fail("HTTP \(response.status) \(HTTPResponse.reasonPhrase(response.status))")
        }
    }

    /// `application/yaml`, `text/yaml`, `application/x-yaml`: YAML; anything with `json`: JSON; else nil.
    static func format(contentType: String?) -> FlagFileFormat? {
        guard let type = contentType?.split(separator: ";").first?.lowercased() else { return nil }
        if type.contains("yaml") { return .yaml }
        if type.contains("json") { return .json }
        return nil
    }

    private func load(_ flags: FlagSet, text: String, format: FlagFileFormat, entityTag: String?) {
        let now = WallClock.secondsSince1970
        state.withLock { state in
            state.flags = flags
            state.lastSuccess = now
            state.freshSince = .now
            state.entityTag = entityTag
            state.document = (text, format)
            state.problem = nil
            state.reportedExpiry = false
        }
        keepCopy(fetched: now)
        report(.loaded(flags))
    }

    /// Writes the last good copy, stamped `fetched`, when the settings name a file.
    private func keepCopy(fetched: Double) {
        guard keepsCopy, let path = settings.cacheFile,
            let (document, entityTag) = state.withLock({ state in state.document.map { ($0, state.entityTag) } })
        else { return }
        let copy = LastGoodCopy(
            url: settings.url, entityTag: entityTag, fetched: fetched, format: document.format, document: document.text)
        let problem = copy.write(to: path).map { "the last good copy was not kept: \($0)" }
        state.withLock { $0.copyProblem = problem }
    }

    private func confirm() {
        let now = WallClock.secondsSince1970
        let known = state.withLock { state -> Bool in
            guard state.flags != nil else { return false }
            state.lastSuccess = now
            state.freshSince = .now
            state.problem = nil
            state.reportedExpiry = false
            return true
        }
        guard known else { return fail("HTTP 304 Not Modified, but no flags were loaded before") }
        // Confirmed is as good as fetched: a host restarted without the network counts from now.
        keepCopy(fetched: now)
        report(.confirmed)
    }

    private func fail(_ message: String) {
        fail(ConfigurationError(message, file: settings.url))
    }

    private func fail(_ error: ConfigurationError) {
        state.withLock { $0.problem = error }
        report(.failed(error))
    }

    private func report(_ event: RemoteFlagSourceEvent) {
        state.withLock { $0.handler }?(event)
    }
}
