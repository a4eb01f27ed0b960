import CapabilityPolicy
import ConfigurationFiles
import FeatureFlags
import Foundation
import Glibc
import RemoteFlags
import TestSupport
import Testing

/// `HTTPFlagSource` against a real nginx: 200, 304, 401, 500, an invalid body, YAML by content
/// type, a change, the server stopped and back, the last good copy on disk.
@Suite(
    "HTTP flag source against nginx", .enabled(if: NginxFixture.isAvailable, "needs root, nginx-light and openssl"),
    .timeLimit(.minutes(2)))
struct HTTPFlagSourceTests {
    static func document(_ color: String, padding: Int = 0) -> String {
        """
        {"flags": {"color": {"state": "ENABLED", "variants": {"red": "red", "blue": "blue"}, "defaultVariant": "\(color)"},
                   "export": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "on"}}}
        """ + String(repeating: " ", count: padding)
    }

    private func settings(_ server: NginxFixture, _ path: String) -> HTTPFlagSourceSettings {
        HTTPFlagSourceSettings(url: server.url(path), certificateAuthorityFile: server.certificate.certificatePath)
    }

    /// A source that is only asked when told (no polling), in a store.
    private func store(_ settings: HTTPFlagSourceSettings) -> (HTTPFlagSource, FlagStore) {
        let source = HTTPFlagSource(settings)
        return (source, FlagStore(sources: [.remote(source)], watchesFiles: false))
    }

    @Test("200 loads the flags with their ETag; asked again, nginx answers 304 to If-None-Match and they stay fresh")
    func loadAndNotModified() async throws {
        let server = try NginxFixture()
        try server.serve("flags.json", Self.document("blue"))
        let (source, flags) = store(settings(server, "flags.json"))
        #expect(source.status.condition == .loading)
        #expect(flags.evaluation("color", default: "none").errorCode != nil, "nothing loaded yet is an error")
        await flags.refreshRemoteSources()
        #expect(flags.value("color", default: "none") == "blue")
        let first = source.status
        #expect(first.condition == .fresh)
        #expect(first.entityTag?.hasPrefix("\"") == true, "\(String(describing: first.entityTag))")
        await flags.refreshRemoteSources()
        #expect(server.statuses == [200, 304])
        #expect(source.status.condition == .fresh)
        #expect(flags.value("color", default: "none") == "blue")
    }

    @Test("a change of size is a new ETag: the new flags replace the old")
    func change() async throws {
        let server = try NginxFixture()
        try server.serve("flags.json", Self.document("blue"))
        let (source, flags) = store(settings(server, "flags.json"))
        await flags.refreshRemoteSources()
        let before = source.status.entityTag
        try server.serve("flags.json", Self.document("red", padding: 7))
        await flags.refreshRemoteSources()
        #expect(server.statuses == [200, 200])
        #expect(source.status.entityTag != before)
        #expect(flags.value("color", default: "none") == "red")
    }

    @Test("401 without the token; the Authorization header comes from a trusted file, never a file others can write")
    func authorization() async throws {
        let server = try NginxFixture()
        try server.serve("private/flags.json", Self.document("blue"))
        let (anonymous, anonymousFlags) = store(settings(server, "private/flags.json"))
        await anonymousFlags.refreshRemoteSources()
        #expect(anonymous.status.condition == .loading)
        #expect(anonymous.status.problem?.message.contains("HTTP 401 Unauthorized") == true, "\(anonymous.status)")

        let secrets = try TemporaryDirectory(prefix: "secret")
        let tokenFile = try secrets.write("Bearer \(server.bearerToken)\n", to: "token", mode: 0o600)
        var withToken = settings(server, "private/flags.json")
        withToken.authorizationFile = tokenFile
        let (_, flags) = store(withToken)
        await flags.refreshRemoteSources()
        #expect(flags.value("color", default: "none") == "blue")
        #expect(server.authorizations.last == "Bearer \(server.bearerToken)")

        // Writable by others: refused before anything is sent.
        chmod(tokenFile, 0o666)
        let (refused, refusedFlags) = store(withToken)
        await refusedFlags.refreshRemoteSources()
        #expect(
            refused.status.problem?.message.contains("written by anyone") == true,
            "\(String(describing: refused.status.problem))")
        // A second line would be a header of its own.
        chmod(tokenFile, 0o600)
        try secrets.write("Bearer x\r\nX-Injected: yes\n", to: "token", mode: 0o600)
        let (injected, injectedFlags) = store(withToken)
        await injectedFlags.refreshRemoteSources()
        #expect(injected.status.problem?.message.contains("one line of visible ASCII") == true, "\(injected.status)")
        #expect(server.statuses.count == 2, "nothing was sent for the refused files: \(server.statuses)")
    }

    @Test("500 and an invalid body keep the last good flags and report the problem (stale), with the position")
    func failuresKeepTheLastGoodFlags() async throws {
        let server = try NginxFixture()
        try server.serve("flags.json", Self.document("blue"))
        let (source, flags) = store(settings(server, "flags.json"))
        let events = flags.events()
        await flags.refreshRemoteSources()
        server.failing = true
        await flags.refreshRemoteSources()
        #expect(source.status.condition == .stale)
        #expect(source.status.problem?.message.contains("HTTP 500 Internal Server Error") == true)
        #expect(flags.value("color", default: "none") == "blue")
        server.failing = false
        try server.serve("flags.json", "{\"flags\": {\"color\": \n  [}")
        await flags.refreshRemoteSources()
        let problem = try #require(source.status.problem)
        #expect(problem.location?.line == 2, "\(problem)")
        #expect(flags.value("color", default: "none") == "blue")
        var seen: [String] = []
        for await event in events {
            seen.append(event.description)
            if seen.count == 3 { break }
        }
        #expect(seen[0].hasPrefix("loaded"))
        #expect(seen[1].contains("HTTP 500"))
        #expect(seen[2].hasPrefix("kept the last good flags"))
    }

    @Test("application/yaml is read as YAML whatever the name; a body over 4 MiB is refused")
    func yamlAndSize() async throws {
        let server = try NginxFixture()
        try server.serve(
            "yaml/flags",
            "flags:\n  color:\n    state: ENABLED\n    variants: { red: red, blue: blue }\n    defaultVariant: red\n")
        let (_, flags) = store(settings(server, "yaml/flags"))
        await flags.refreshRemoteSources()
        #expect(flags.value("color", default: "none") == "red")

        try server.serve("big.json", String(repeating: " ", count: 4 * 1024 * 1024 + 1) + "{}")
        let (big, _) = store(settings(server, "big.json"))
        await big.refresh(onlyIfDue: false)
        #expect(big.status.problem?.message.contains("larger than 4194304 bytes") == true, "\(big.status)")
    }

    @Test("a certificate nobody vouches for is refused")
    func untrustedCertificate() async throws {
        let server = try NginxFixture()
        try server.serve("flags.json", Self.document("blue"))
        // A short timeout: the client tries again until it runs out, then reports the TLS failure.
        let (source, flags) = store(HTTPFlagSourceSettings(url: server.url("flags.json"), timeout: .seconds(2)))
        await flags.refreshRemoteSources()
        #expect(source.status.condition == .loading)
        #expect(source.status.problem?.message.contains("TLS") == true, "\(source.status)")
        #expect(server.statuses.isEmpty)
    }

    @Test("the server stopped: stale, then past max-staleness an error (a gate would be undecided), then back: fresh")
    func outageAndRecovery() async throws {
        let server = try NginxFixture()
        try server.serve("flags.json", Self.document("blue"))
        var settings = settings(server, "flags.json")
        settings.interval = .seconds(1)
        // A request's timeout must end well before the flags expire, whatever the server does.
        settings.timeout = .milliseconds(500)
        settings.maxStaleness = .seconds(4)
        settings.jitter = 0
        let source = HTTPFlagSource(settings)
        let flags = FlagStore(sources: [.remote(source)], watchesFiles: true)
        let events = flags.events()
        var iterator = events.makeAsyncIterator()
        // Polling: the first request at once.
        while let event = await iterator.next() { if case .loaded = event { break } }
        #expect(flags.value("export", default: false))
        server.stop()
        // Asked at once: stale, the last good flags still used.
        await source.refresh(onlyIfDue: false)
        #expect(source.status.condition == .stale)
        #expect(flags.value("export", default: false))
        while let event = await iterator.next() {
            if case .expired = event { break }
        }
        #expect(source.status.condition == .expired)
        let expired = flags.evaluation("export", default: false)
        #expect(expired.errorCode == .general)
        #expect(expired.errorMessage?.contains("past max-staleness") == true, "\(expired)")
        #expect(!flags.value("export", default: false))
        try server.start()
        while let event = await iterator.next() {
            if case .loaded = event { break }
            if case .confirmed = event { break }
        }
        #expect(source.status.condition == .fresh)
        #expect(flags.value("export", default: false))
    }

    @Test(
        "the last good copy: written atomically by root, read back at start without the network, refused when others can write it"
    )
    func lastGoodCopy() async throws {
        let server = try NginxFixture()
        try server.serve("flags.json", Self.document("blue"))
        let copies = try TemporaryDirectory(prefix: "flag-copies")
        var settings = settings(server, "flags.json")
        settings.cacheFile = copies.path(of: "flags/copy.json")
        let (_, flags) = store(settings)
        await flags.refreshRemoteSources()
        var info = stat()
        #expect(stat(settings.cacheFile!, &info) == 0)
        #expect(info.st_uid == 0 && info.st_mode & 0o777 == 0o644)
        #expect(try FileManager.default.contentsOfDirectory(atPath: copies.path(of: "flags")) == ["copy.json"])

        server.stop()
        let (offline, offlineFlags) = store(settings)
        #expect(offline.status.condition == .fresh)
        #expect(offlineFlags.value("color", default: "none") == "blue")
        #expect(offline.status.entityTag != nil)

        chmod(settings.cacheFile!, 0o666)
        let (refused, refusedFlags) = store(settings)
        #expect(refused.status.condition == .loading)
        #expect(
            refused.status.note?.contains("written by anyone") == true, "\(String(describing: refused.status.note))")
        #expect(refusedFlags.evaluation("color", default: "none").errorCode != nil)
        chmod(settings.cacheFile!, 0o644)

        // A copy stamped after now (the clock was set back since it was written) has no age that
        // can be trusted: it was taken as age 0 for up to 300 s, outliving max-staleness. Not believed.
        let text = try String(contentsOfFile: settings.cacheFile!, encoding: .utf8)
        let stamped = try #require(text.firstMatch(of: /"fetched"\s*:\s*([0-9.e+]+)/))
        let future = Date().timeIntervalSince1970 + 200
        try text.replacingCharacters(in: stamped.range, with: "\"fetched\":\(future)")
            .write(toFile: settings.cacheFile!, atomically: false, encoding: .utf8)
        let (dated, datedFlags) = store(settings)
        #expect(dated.status.condition == .loading, "\(dated.status)")
        #expect(dated.status.note?.contains("after now") == true, "\(String(describing: dated.status.note))")
        #expect(datedFlags.evaluation("color", default: "none").errorCode != nil)
    }

    /// Docs/Policy.md's complete service and the GatedService example turn file watching off; that
    /// used to stop polling the flag service too, so `maintenance` turned on at the service was
    /// never seen (the stale "off" stayed). Polling a service is a setting of its own.
    @Test("a policy's flag service is polled with file watching off; only pollsFlagServices: false stops it")
    func pollingApartFromWatching() async throws {
        let server = try NginxFixture()
        try server.serve("flags.json", Self.document("blue"))
        let directory = try TemporaryDirectory(prefix: "polled-policy")
        chmod(directory.path, 0o755)
        var environment = PolicyEnvironment.portable
        environment.httpFlagSource = { HTTPFlagSource($0) }
        func makePolicy(keepingCopyIn copy: String) throws -> Policy {
            let file = try directory.write(
                """
                flags:
                  http:
                    - url: \(server.url("flags.json"))
                      ca-file: \(server.certificate.certificatePath)
                      interval: 1s
                      jitter: 0
                      cache-file: \(directory.path(of: copy))
                """, to: copy + ".policy.yaml", mode: 0o644)
            return try PolicyLoader.load(files: [file], environment: environment)
        }
        let policy = try makePolicy(keepingCopyIn: "polled.json")
        let loaded = try LoadedPolicy(policy, options: PolicyOptions(watchesFlagFiles: false))
        var events = loaded.flags.events().makeAsyncIterator()
        while let event = await events.next() { if case .loaded = event { break } }
        #expect(loaded.flags.value("color", default: "none") == "blue")
        try server.serve("flags.json", Self.document("red", padding: 3))
        while let event = await events.next() {
            if case .loaded = event, loaded.flags.value("color", default: "none") == "red" { break }
        }
        #expect(loaded.flags.value("color", default: "none") == "red")
        // One decision and done: not polled, asked only when told.
        let once = try LoadedPolicy(
            makePolicy(keepingCopyIn: "once.json"),
            options: PolicyOptions(watchesFlagFiles: false, pollsFlagServices: false))
        #expect(once.flags.evaluation("color", default: "none").errorCode != nil, "nothing asked yet")
        await once.flags.refreshRemoteSources()
        #expect(once.flags.value("color", default: "none") == "red")
    }

    @Test("a store that does not follow its source still lets its flags expire on time")
    func expiryWithoutPolling() async throws {
        let server = try NginxFixture()
        try server.serve("flags.json", Self.document("blue"))
        var settings = settings(server, "flags.json")
        settings.maxStaleness = .seconds(1)
        settings.interval = .seconds(1)
        let (_, flags) = store(settings)
        var events = flags.events().makeAsyncIterator()
        await flags.refreshRemoteSources()
        #expect(flags.value("export", default: false))
        while let event = await events.next() {
            if case .expired = event { break }
        }
        #expect(flags.evaluation("export", default: false).errorCode == .general)
        #expect(server.statuses == [200], "nothing asked the service again")
    }
}
