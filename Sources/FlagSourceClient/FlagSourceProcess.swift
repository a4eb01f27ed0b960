import CLinuxSupport
import ConfigurationFiles
import Dispatch
package import FeatureFlags
import Glibc
import Locking
import Plumbing
import SystemPackage

/// A flag service followed by the helper process `capctl-flag-source`, which holds RemoteFlags'
/// `HTTPFlagSource`: capctl and capctld (`PolicyEnvironment.httpFlagSource`) talk to the network
/// only through it, so neither parses HTTP, TLS or JSON from a flag service in its own process,
/// and a check on a policy without flag services loads no HTTP client (Docs/Performance.md).
///
/// The helper is found beside the capctl binary (`../libexec/capctl/` as the Debian package
/// installs it, or the same directory in a build), never through the environment, and started
/// only when it passes the trusted-file checks (for every caller: nobody but root and the caller
/// may be able to change it). It is the one process that parses TLS, HTTP and JSON from the
/// network, so it gets nothing it does not need: an empty environment, no descriptor but its
/// pipes, no_new_privs, and, under a root capctl, nobody's uid and no groups once it has read
/// what needs root (the last good copy, the CA file, the token). It reports every event with
/// the whole status and the last good document, which is loaded here as a local file would be;
/// under root, capctl writes the last good copy from those reports.
/// A helper that cannot be started, or that ends, is a problem of the source: its flags are
/// answered with an error once past their limit, as for a service that cannot be reached.
package final class FlagSourceProcess: RemoteFlagSource {
    package let settings: HTTPFlagSourceSettings
    package var location: String { settings.url }

    private struct State {
        var status: RemoteFlagSourceStatus
        var documentText: String?
        var handler: (@Sendable (RemoteFlagSourceEvent) -> Void)?
        var started = false
        /// Refreshes asked for, each waiting for its `refreshed`.
        var waiting: [RefreshWaiter] = []
        /// The helper's standard input, until the source stops.
        var input: LineConnection?
        var ended = false
    }

    private let state: Lock<State>

    /// Starts the helper and waits (at most the source's timeout, plus five seconds) for its first
    /// status, which holds the last good copy from disk.
    package init(_ settings: HTTPFlagSourceSettings) {
        self.settings = settings
        state = Lock(State(status: RemoteFlagSourceStatus(location: settings.url, condition: .loading)))
        let helper: (pid: pid_t, input: LineConnection, output: LineConnection)
        do throws(ConfigurationError) {
            helper = try Self.spawn(try Self.helperPath(), settings: settings)
        } catch {
            state.withLock { state in
                state.status.problem = ConfigurationError(error.message, file: settings.url)
                state.ended = true
            }
            return
        }
        state.withLock { $0.input = helper.input }
        let reader = helper.output
        // A message holds the whole document: at most the trusted reader's limit, escaped as JSON.
        let limit = TrustedFile.sizeLimit * 6 + 65_536
        if case .line(let line) = reader.readLine(limit: limit, until: .now + settings.timeout + .seconds(5)) {
            apply(String(decoding: line, as: UTF8.self))
        } else {
            end("the flag service helper did not start")
        }
        let started = DetachedThread.start { [weak self] in
            while case .line(let line) = reader.readLine(limit: limit) {
                guard let self else { break }
                self.apply(String(decoding: line, as: UTF8.self))
            }
            reader.close()
            self?.end("the flag service helper ended")
            // It has closed its output, so it is ending: reaped, never left a zombie.
            var status: Int32 = 0
            while waitpid(helper.pid, &status, 0) < 0, errno == EINTR {}
        }
        if !started {
            reader.close()
            end("cannot start a thread to follow the flag service helper")
        }
    }

    deinit {
        stop()
    }

    package var status: RemoteFlagSourceStatus {
        state.withLock { state in
            var status = state.status
            // Without its helper, the source still expires on time.
            if state.ended, status.condition != .loading, let last = status.lastSuccess,
                WallClock.secondsSince1970 - last > Double(settings.maxStaleness.components.seconds)
            {
                status.condition = .expired
            }
            return status
        }
    }

    package func start(follow: Bool, _ handler: @escaping @Sendable (RemoteFlagSourceEvent) -> Void) {
        let input = state.withLock { state -> LineConnection? in
            state.handler = handler
            guard !state.started else { return nil }
            state.started = true
            return state.input
        }
        input?.writeLine(FlagSourceCommand.start(follow: follow).line)
    }

    /// Asks the helper for a refresh and waits for it to report one: at most the source's timeout
    /// and five seconds, after which the helper is taken as gone (a problem of the source).
    package func refresh(onlyIfDue: Bool) async {
        let limit = settings.timeout + .seconds(5)
        let waiter = RefreshWaiter()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            waiter.set(continuation)
            let input = state.withLock { state -> LineConnection? in
                guard !state.ended, let input = state.input else { return nil }
                state.waiting.append(waiter)
                return input
            }
            guard let input else {
                waiter.resume()
                return
            }
            // A helper that is gone is its reader's to report.
            input.writeLine(FlagSourceCommand.refresh(onlyIfDue: onlyIfDue).line)
            Self.timers.asyncAfter(deadline: .now() + .milliseconds(Int(limit.components.seconds) * 1000)) {
                [weak self] in
                // Taken first, resumed last: whoever reads the source next sees why.
                guard let waiting = waiter.take() else { return }
                self?.end("the flag service helper did not answer a refresh within \(limit)")
                waiting.resume()
            }
        }
    }

    /// Only for refresh deadlines, which never block.
    private static let timers = DispatchQueue(label: "FlagSourceProcess.timers")

    package func stop() {
        let input = state.withLock { state -> LineConnection? in
            state.handler = nil
            defer { state.input = nil }
            return state.input
        }
        // The end of its input stops the helper.
        input?.close()
    }

    // MARK: The helper's lines

    private func apply(_ line: String) {
        let update: RemoteFlagSourceMessage.Update
        do throws(ConfigurationError) {
            update = try RemoteFlagSourceMessage.update(from: line, location: settings.url)
        } catch {
            return end("the flag service helper said something unreadable")
        }
        let (handler, flags, resume) = state.withLock {
            state -> ((@Sendable (RemoteFlagSourceEvent) -> Void)?, FlagSet?, RefreshWaiter?) in
            var status = update.status
            status.flags = state.status.flags
            if let document = update.document, document.text != state.documentText {
                do throws(ConfigurationError) {
                    status.flags = try FlagSet.parse(document.text, file: settings.url, format: document.format)
                    state.documentText = document.text
                } catch {
                    // The helper loaded it; a document that does not load here is not used.
                    status.problem = error
                }
            }
            state.status = status
            let resume = update.event == .refreshed && !state.waiting.isEmpty ? state.waiting.removeFirst() : nil
            return (state.handler, status.flags, resume)
        }
        // Kept before anyone hears of it, as the source itself does.
        if update.event == .loaded || update.event == .confirmed { keepCopy(update) }
        switch update.event {
        case .loaded: if let flags { handler?(.loaded(flags)) }
        case .confirmed: handler?(.confirmed)
        case .failed: handler?(.failed(update.error ?? ConfigurationError("a refresh failed", file: settings.url)))
        case .expired: handler?(.expired(update.reason ?? "the flags are past max-staleness"))
        case .started, .refreshed: break
        }
        resume?.resume()
    }

    /// Under root, writes the last good copy the helper (unprivileged) can no longer write, from
    /// what it reported; a copy that cannot be written is noted in the status, as the source would.
    private func keepCopy(_ update: RemoteFlagSourceMessage.Update) {
        guard geteuid() == 0, let path = settings.cacheFile, let document = update.document,
            let fetched = update.status.lastSuccess
        else { return }
        let copy = LastGoodCopy(
            url: settings.url, entityTag: update.status.entityTag, fetched: fetched, format: document.format,
            document: document.text)
        let problem = copy.write(to: path).map { "the last good copy was not kept: \($0)" }
        state.withLock { $0.status.note = problem ?? $0.status.note }
    }

    /// The helper is gone (or never came): a problem of the source, and no refresh waits for it.
    private func end(_ message: String) {
        let error = ConfigurationError(message, file: settings.url)
        let (handler, waiting, input) = state.withLock { state in
            defer {
                state.ended = true
                state.waiting = []
                state.input = nil
            }
            if state.status.problem == nil || !state.ended { state.status.problem = error }
            return (state.ended ? nil : state.handler, state.waiting, state.input)
        }
        input?.close()
        for waiter in waiting { waiter.resume() }
        handler?(.failed(error))
    }

    // MARK: Starting the helper

    /// `capctl-flag-source` in `PREFIX/libexec/capctl/` for a program in `PREFIX/bin/` (or
    /// `PREFIX/sbin/`), or beside it.
    static func helperPath() throws(ConfigurationError) -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { throw ConfigurationError("cannot find the flag service helper: /proc/self/exe") }
        let executable = String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let components = executable.split(separator: "/", omittingEmptySubsequences: false).dropLast()
        let directory = components.joined(separator: "/")
        let prefix = components.dropLast().joined(separator: "/")
        let candidates = [prefix + "/libexec/capctl/capctl-flag-source", directory + "/capctl-flag-source"]
        guard let helper = candidates.first(where: { access($0, X_OK) == 0 }) else {
            throw ConfigurationError(
                "cannot find the flag service helper capctl-flag-source (looked in \(candidates.joined(separator: " and ")))"
            )
        }
        do throws(TrustedFile.Refusal) {
            try TrustedFile.check(file: helper)
        } catch {
            throw ConfigurationError("the flag service helper is not trusted: \(error)")
        }
        return helper
    }

    /// Starts the helper with socket pairs on its standard input and output (a socket, not a
    /// pipe, so writing to a helper that has gone fails with EPIPE rather than killing capctl with
    /// SIGPIPE); its standard error is capctl's.
    private static func spawn(_ helper: String, settings: HTTPFlagSourceSettings) throws(ConfigurationError) -> (
        pid: pid_t, input: LineConnection, output: LineConnection
    ) {
        let toHelper: (parent: LineConnection, child: LineConnection)
        let fromHelper: (parent: LineConnection, child: LineConnection)
        do throws(Errno) {
            let input = try FileDescriptor.socketPair()
            toHelper = (LineConnection(owning: input.0), LineConnection(owning: input.1))
            let output = try FileDescriptor.socketPair()
            fromHelper = (LineConnection(owning: output.0), LineConnection(owning: output.1))
        } catch {
            throw spawnError(error.rawValue)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toHelper.child.descriptor.rawValue, STDIN_FILENO)
        posix_spawn_file_actions_adddup2(&actions, fromHelper.child.descriptor.rawValue, STDOUT_FILENO)
        // Nothing else of capctl's (a PAM conversation, a bus connection) reaches the helper.
        clinux_spawn_close_from(&actions, 3)
        let arguments = [helper, RemoteFlagSourceMessage.encode(settings)]
        let argv = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        // An empty environment: nothing of the caller's (proxies, SSL_CERT_FILE, LD_*) steers
        // the helper; what it needs is in its settings.
        let environment: [UnsafeMutablePointer<CChar>?] = [nil]
        var pid: pid_t = 0
        let result = posix_spawn(&pid, helper, &actions, nil, argv, environment)
        toHelper.child.close()
        fromHelper.child.close()
        guard result == 0 else { throw spawnError(result) }
        return (pid, toHelper.parent, fromHelper.parent)
    }

    private static func spawnError(_ code: Int32) -> ConfigurationError {
        ConfigurationError("cannot start the flag service helper: \(String(cString: strerror(code)))")
    }

}

/// One refresh's wait, ended once: by the helper's `refreshed`, by its end, or by the deadline.
private final class RefreshWaiter: Sendable {
    private let continuation = Lock<CheckedContinuation<Void, Never>?>(nil)

    func set(_ waiting: CheckedContinuation<Void, Never>) {
        continuation.withLock { $0 = waiting }
    }

    /// The wait, to be ended by the caller; nil when it had ended already.
    func take() -> CheckedContinuation<Void, Never>? {
        continuation.withLock { value in
            defer { value = nil }
            return value
        }
    }

    /// Ends the wait, unless it had ended already.
    func resume() {
        take()?.resume()
    }
}
