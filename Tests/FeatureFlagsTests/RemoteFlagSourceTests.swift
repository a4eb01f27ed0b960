import ConfigurationFiles
import FeatureFlags
import Locking
import Testing

/// How a `FlagStore` merges a remote source, whatever fetches it: a source of the test's own
/// that reports what the test says.
@Suite("Remote flag sources in a store", .timeLimit(.minutes(2)))
struct RemoteFlagSourceTests {
    final class ScriptedSource: RemoteFlagSource {
        private struct State: Sendable {
            var status: RemoteFlagSourceStatus
            var handler: (@Sendable (RemoteFlagSourceEvent) -> Void)?
            var followed: Bool?
            var stopped = false
        }

        private let state: Lock<State>
        let location = "https://flags.example.com/test.json"

        init() {
            state = Lock(State(status: RemoteFlagSourceStatus(location: location, condition: .loading)))
        }

        var status: RemoteFlagSourceStatus { state.withLock { $0.status } }
        var followed: Bool? { state.withLock { $0.followed } }
        var stopped: Bool { state.withLock { $0.stopped } }

        func start(follow: Bool, _ handler: @escaping @Sendable (RemoteFlagSourceEvent) -> Void) {
            state.withLock {
                $0.handler = handler
                $0.followed = follow
            }
        }

        func refresh(onlyIfDue: Bool) async {}

        func stop() {
            state.withLock {
                $0.handler = nil
                $0.stopped = true
            }
        }

        /// Changes the status, then reports `event`.
        func send(_ event: RemoteFlagSourceEvent, _ change: (inout RemoteFlagSourceStatus) -> Void) {
            let handler = state.withLock { state in
                change(&state.status)
                return state.handler
            }
            handler?(event)
        }
    }

    static let remote = try! FlagSet.parse(
        """
        {"flags": {"export": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "on"}}}
        """)
    static let local = try! FlagSet.parse(
        """
        {"flags": {"export": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off"},
                   "local": {"state": "ENABLED", "variants": {"on": true}, "defaultVariant": "on"}}}
        """)

    @Test("loaded flags take their place in precedence; expired ones are errors, never the older layer's value")
    func precedenceAndExpiry() {
        let source = ScriptedSource()
        let store = FlagStore(sources: [.flags(Self.local), .remote(source)], watchesFiles: true)
        #expect(source.followed == true)
        #expect(!store.value("export", default: true), "nothing loaded yet: the local flag")
        source.send(.loaded(Self.remote)) {
            $0.flags = Self.remote
            $0.condition = .fresh
        }
        #expect(store.value("export", default: false))
        source.send(.expired("past max-staleness")) {
            $0.condition = .expired
            $0.problem = ConfigurationError("past max-staleness", file: $0.location)
        }
        let expired = store.evaluation("export", default: false)
        #expect(expired.errorCode == .general && expired.value == false, "\(expired)")
        #expect(!store.value("export", default: false), "the fast path does not skip the expiry")
        #expect(store.value("local", default: false), "flags only the other layer defines are unaffected")
        #expect(store.loadFailures.isEmpty, "an unreachable service is not a load failure")
        #expect(store.remoteSources.first?.condition == .expired)
        source.send(.confirmed) {
            $0.condition = .fresh
            $0.problem = nil
        }
        #expect(store.value("export", default: false))
    }

    @Test("an HTTP declaration with no client is an error for its flags; a store nobody holds stops its sources")
    func unconnectedAndLifetime() {
        let declared = FlagStore(
            sources: [.http(HTTPFlagSourceSettings(url: "https://flags.example.com/a.json"))], watchesFiles: false)
        let details = declared.evaluation("export", default: true)
        #expect(details.errorCode == .general && details.value == true)
        #expect(declared.loadFailures.first?.message.contains("no HTTP client") == true)

        let source = ScriptedSource()
        weak var released: FlagStore?
        do {
            let store = FlagStore(sources: [.remote(source)], watchesFiles: false)
            released = store
            #expect(source.followed == false)
        }
        #expect(released == nil)
        #expect(source.stopped)
    }
}
