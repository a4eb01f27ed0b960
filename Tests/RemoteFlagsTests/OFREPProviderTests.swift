import FeatureFlags
import Foundation
import RemoteFlags
import TestSupport
import Testing

/// `OFREPProvider` against the spec-derived test server, and the test server against OpenFeature's
/// own Python OFREP provider.
@Suite("OFREP provider", .timeLimit(.minutes(2)))
struct OFREPProviderTests {
    static let document = """
        {"flags": {
          "bool-flag": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "on",
                        "targeting": {"if": [{"==": [{"var": "tier"}, "free"]}, "off", null]}},
          "string-flag": {"state": "ENABLED", "variants": {"red": "red", "blue": "blue"}, "defaultVariant": "red",
                          "targeting": {"if": [{"==": [{"var": "tier"}, "gold"]}, "blue", null]}, "metadata": {"owner": "ui"}},
          "int-flag": {"state": "ENABLED", "variants": {"low": 10, "high": 100}, "defaultVariant": "low"},
          "float-flag": {"state": "ENABLED", "variants": {"pi": 3.14, "e": 2.72}, "defaultVariant": "pi"},
          "object-flag": {"state": "ENABLED", "variants": {"a": {"x": 1}}, "defaultVariant": "a"},
          "disabled-flag": {"state": "DISABLED", "variants": {"on": true}, "defaultVariant": "on"},
          "broken-flag": {"state": "ENABLED", "variants": {"on": true}, "defaultVariant": "on",
                          "targeting": {"no-such-operator": [1]}}
        }}
        """

    private func provider(_ server: OFREPTestServer, poll: Duration? = nil) -> OFREPProvider {
        OFREPProvider(OFREPConfiguration(endpoint: server.endpoint, timeout: .seconds(5), pollInterval: poll))
    }

    @Test("the static context is evaluated in bulk and answered from the cache; ETag gives 304, no ETag a full answer")
    func bulkAndEntityTags() async throws {
        let server = try OFREPTestServer(document: Self.document)
        let provider = provider(server)
        let gold = FlagEvaluationContext(attributes: ["tier": "gold"])
        try await provider.initialize(context: gold)
        #expect(provider.resolveStringEvaluation("string-flag", default: "none", context: gold).value == "blue")
        #expect(provider.resolveStringEvaluation("string-flag", default: "none", context: nil).value == "blue")
        #expect(provider.resolveIntegerEvaluation("int-flag", default: 0, context: nil).value == 10)
        #expect(provider.resolveDoubleEvaluation("float-flag", default: 0, context: nil).value == 3.14)
        #expect(provider.resolveObjectEvaluation("object-flag", default: .null, context: nil).value == ["x": 1])
        #expect(server.requests.count == 1, "answered from the cache")
        await provider.refresh()
        #expect(server.requests.last?.headers["if-none-match"]?.hasPrefix("\"") == true)
        // A change: the new evaluations replace the cache.
        let events = provider.providerEvents()
        try server.serve(
            Self.document.replacingOccurrences(of: "\"defaultVariant\": \"low\"", with: "\"defaultVariant\": \"high\""))
        await provider.refresh()
        #expect(provider.resolveIntegerEvaluation("int-flag", default: 0, context: nil).value == 100)
        for await event in events {
            #expect(event.kind == .configurationChanged)
            #expect(event.flagsChanged == ["int-flag"])
            break
        }
        // A service that sends no ETag (flagd's endpoint): nothing to send back, the whole answer each time.
        server.sendsEntityTag = false
        let plain = self.provider(server)
        try await plain.initialize(context: gold)
        await plain.refresh()
        #expect(server.requests.suffix(2).allSatisfy { $0.headers["if-none-match"] == nil })
        #expect(plain.resolveIntegerEvaluation("int-flag", default: 0, context: nil).value == 100)
    }

    @Test("another context is a single-flag evaluation; types are checked here; no value means the code default")
    func singleEvaluationsAndTypes() async throws {
        let server = try OFREPTestServer(document: Self.document)
        let provider = provider(server)
        try await provider.initialize(context: FlagEvaluationContext())
        let free = FlagEvaluationContext(targetingKey: "user-1", attributes: ["tier": "free"])
        let off = provider.resolveBooleanEvaluation("bool-flag", default: true, context: free)
        #expect(off.value == false && off.variant == "off" && off.reason == .targetingMatch)
        let body = try #require(server.requests.last?.body)
        #expect(body.contains("\"targetingKey\":\"user-1\"") && body.contains("\"tier\":\"free\""), "\(body)")
        let mismatch = provider.resolveIntegerEvaluation("string-flag", default: 7, context: nil)
        #expect(mismatch.value == 7 && mismatch.errorCode == .typeMismatch)
        let disabled = provider.resolveBooleanEvaluation("disabled-flag", default: false, context: nil)
        #expect(disabled.value == false && disabled.errorCode == nil && disabled.reason == .disabled)
        #expect(
            provider.resolveStringEvaluation("string-flag", default: "", context: nil).flagMetadata["owner"] == "ui")
    }

    @Test(
        "errors: 404 FLAG_NOT_FOUND, 400 the body's code, 401 and 403 GENERAL (fatal for the bulk), 429 pauses until Retry-After"
    )
    func errors() async throws {
        let server = try OFREPTestServer(document: Self.document)
        let provider = provider(server)
        let someone = FlagEvaluationContext(targetingKey: "u")
        #expect(
            provider.resolveBooleanEvaluation("no-such-flag", default: false, context: someone).errorCode
                == .flagNotFound)
        let broken = provider.resolveBooleanEvaluation("broken-flag", default: false, context: someone)
        #expect(broken.errorCode == .parseError, "\(broken)")
        server.bearerToken = "secret"
        let unauthorized = provider.resolveBooleanEvaluation("bool-flag", default: false, context: someone)
        #expect(unauthorized.errorCode == .general && unauthorized.errorMessage == "unauthorized")
        await #expect(throws: ProviderError.self) { try await provider.initialize(context: FlagEvaluationContext()) }
        #expect(
            provider.resolveBooleanEvaluation("bool-flag", default: false, context: nil).errorCode == .providerFatal)

        let withToken = OFREPProvider(
            OFREPConfiguration(
                endpoint: server.endpoint, headers: [("Authorization", "Bearer secret")], pollInterval: nil))
        #expect(withToken.resolveBooleanEvaluation("bool-flag", default: false, context: someone).value == true)
        server.forbidden = true
        #expect(
            withToken.resolveBooleanEvaluation("bool-flag", default: false, context: someone).errorMessage
                == "forbidden")
        server.forbidden = false
        server.retryAfter = "120"
        let limited = withToken.resolveBooleanEvaluation("bool-flag", default: false, context: someone)
        #expect(limited.errorCode == .general && limited.errorMessage?.contains("rate limited") == true)
        let count = server.requests.count
        server.retryAfter = nil
        let paused = withToken.resolveBooleanEvaluation("bool-flag", default: false, context: someone)
        #expect(paused.errorCode == .general && server.requests.count == count, "no request while paused")
    }

    @Test(
        "2.8.2, 2.8.3: READY before initialize returns; ERROR before it throws, PROVIDER_FATAL when refused for good; one each through the API"
    )
    func lifecycleEvents() async throws {
        let server = try OFREPTestServer(document: Self.document)
        let ready = provider(server)
        #expect(ready.emitsLifecycleEvents)
        var readyEvents = ready.providerEvents().makeAsyncIterator()
        try await ready.initialize(context: FlagEvaluationContext())
        #expect(await readyEvents.next()?.kind == .ready)

        // Rate limited: an error it may recover from.
        server.retryAfter = "120"
        let limited = provider(server)
        var limitedEvents = limited.providerEvents().makeAsyncIterator()
        await #expect(throws: ProviderError.self) { try await limited.initialize(context: FlagEvaluationContext()) }
        let transient = await limitedEvents.next()
        #expect(transient?.kind == .error && transient?.errorCode == .general)
        server.retryAfter = nil

        // Unauthorized: it never will.
        server.bearerToken = "secret"
        let refused = provider(server)
        let api = OpenFeatureAPI()
        var events = api.events().makeAsyncIterator()
        _ = await events.next()  // the no-op provider's state
        await api.setProvider(refused)
        #expect(api.providerStatus() == .fatal)
        let fatal = await events.next()
        #expect(fatal?.kind == .error && fatal?.errorCode == .providerFatal)
        server.bearerToken = nil
        await api.setProvider(provider(server))
        #expect(api.providerStatus() == .ready)
        #expect(await events.next()?.kind == .ready, "the next event is the new provider's, not a second ERROR")
    }

    @Test("a context with an incomplete attribute is never sent: INVALID_CONTEXT")
    func incompleteContext() async throws {
        let server = try OFREPTestServer(document: Self.document)
        let provider = provider(server)
        let context = FlagEvaluationContext(
            targetingKey: "u", attributes: ["groups": ["wheel"]],
            incompleteAttributes: ["groups": "gid 70020 unresolved"])
        let details = provider.resolveBooleanEvaluation("bool-flag", default: false, context: context)
        #expect(details.errorCode == .invalidContext)
        #expect(server.requests.isEmpty)
    }

    @Test("a context holding a number JSON cannot carry (NaN, infinity) is never sent: INVALID_CONTEXT")
    func nonFiniteContext() async throws {
        let server = try OFREPTestServer(document: Self.document)
        let provider = provider(server)
        for number in [Double.nan, .infinity, -.infinity] {
            let context = FlagEvaluationContext(targetingKey: "u", attributes: ["load": ["now": .number(number)]])
            let details = provider.resolveBooleanEvaluation("bool-flag", default: false, context: context)
            #expect(details.errorCode == .invalidContext, "\(number): \(details)")
        }
        #expect(server.requests.isEmpty)
    }

    @Test("OFREP_ENDPOINT, OFREP_HEADERS and OFREP_TIMEOUT_MS are read")
    func environment() throws {
        let configuration = try OFREPConfiguration(environment: [
            "OFREP_ENDPOINT": "https://flags.example.com", "OFREP_HEADERS": "Authorization=Bearer 123, X-API-Key=abc",
            "OFREP_TIMEOUT_MS": "2500",
        ])
        #expect(configuration.endpoint == "https://flags.example.com")
        #expect(configuration.headers.map(\.name) == ["Authorization", "X-API-Key"])
        #expect(configuration.headers.map(\.value) == ["Bearer 123", "abc"])
        #expect(configuration.timeout == .milliseconds(2500))
    }

    @Test(
        "a bad OFREP environment is refused with a clear error",
        arguments: [
            ([:], "OFREP_ENDPOINT is not set"),
            (["OFREP_ENDPOINT": "flags.example.com"], "must start with https:// or http://"),
            (["OFREP_ENDPOINT": "http://x", "OFREP_TIMEOUT_MS": "-5"], "OFREP_TIMEOUT_MS must be a whole number"),
            (["OFREP_ENDPOINT": "http://x", "OFREP_HEADERS": "NoEquals"], "is not Name=value"),
            (["OFREP_ENDPOINT": "http://x", "OFREP_HEADERS": "Bad Name=1"], "is not a header name"),
        ] as [([String: String], String)])
    func badEnvironment(environment: [String: String], message: String) {
        #expect {
            _ = try OFREPConfiguration(environment: environment)
        } throws: { error in
            "\(error)".contains(message)
        }
    }

    static var python: String? {
        let path = ProcessInfo.processInfo.environment["OFREP_PYTHON"] ?? ""
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }

    @Test(
        "OpenFeature's Python OFREP provider gets the same answers from the test server, and its answers match the openapi schemas",
        .enabled(if: python != nil, "needs OFREP_PYTHON: Scripts/test makes the venv (openfeature-provider-ofrep)"))
    func pythonProviderAgrees() async throws {
        let server = try OFREPTestServer(document: Self.document)
        let provider = provider(server)
        let cases: [(key: String, type: String, default: FlagValue, context: [String: FlagValue])] = [
            ("bool-flag", "bool", false, ["targetingKey": "u1", "tier": "free"]),
            ("bool-flag", "bool", false, ["targetingKey": "u1", "tier": "paid"]),
            ("string-flag", "string", "none", ["targetingKey": "u2", "tier": "gold"]),
            ("int-flag", "int", 0, ["targetingKey": "u3"]),
            ("float-flag", "double", 0.5, ["targetingKey": "u3"]),
            ("object-flag", "object", ["d": 1], ["targetingKey": "u3"]),
            ("disabled-flag", "bool", true, ["targetingKey": "u3"]),
            ("string-flag", "int", 5, ["targetingKey": "u4"]),
            ("no-such-flag", "bool", true, ["targetingKey": "u5"]),
            ("broken-flag", "bool", false, ["targetingKey": "u6"]),
        ]
        var ours: [FlagValue] = []
        for item in cases {
            var attributes = item.context
            let key = attributes.removeValue(forKey: "targetingKey")?.stringValue
            let context = FlagEvaluationContext(targetingKey: key, attributes: attributes)
            let details: FlagEvaluationDetails<FlagValue> =
                switch item.type {
                case "bool":
                    provider.resolveBooleanEvaluation(item.key, default: item.default.boolValue!, context: context).map(
                        FlagValue.bool)
                case "string":
                    provider.resolveStringEvaluation(item.key, default: item.default.stringValue!, context: context)
                        .map(
                            FlagValue.string)
                case "int":
                    provider.resolveIntegerEvaluation(item.key, default: item.default.integerValue!, context: context)
                        .map {
                            .number(Double($0))
                        }
                case "double":
                    provider.resolveDoubleEvaluation(item.key, default: item.default.numberValue!, context: context)
                        .map(
                            FlagValue.number)
                default: provider.resolveObjectEvaluation(item.key, default: item.default, context: context)
                }
            ours.append([
                "value": details.value, "variant": details.variant.map(FlagValue.string) ?? .null,
                "reason": .string(details.reason.rawValue),
                "errorCode": details.errorCode.map { .string($0.rawValue) } ?? .null,
            ])
        }
        let request: FlagValue = [
            "endpoint": .string(server.endpoint),
            "cases": .list(
                cases.map {
                    [
                        "key": .string($0.key), "type": .string($0.type), "default": $0.default,
                        "context": .structure($0.context),
                    ]
                }),
        ]
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/OFREP/ofrep_check.py").path
        let run = try runProcess(Self.python!, [script], input: request.description)
        #expect(run.status == 0, "\(run.standardError)")
        let answer = try #require(
            try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any])
        #expect((answer["schemaErrors"] as? [String]) == [], "\(answer["schemaErrors"] ?? "")")
        let theirs = try #require(answer["results"] as? [[String: Any]])
        #expect(theirs.count == ours.count)
        for (index, (mine, python)) in zip(ours, theirs).enumerated() {
            let label = "\(cases[index].key) as \(cases[index].type)"
            guard case .structure(let fields) = mine else { continue }
            #expect(fields["errorCode"]?.stringValue == python["errorCode"] as? String, "\(label): \(python)")
            #expect(fields["reason"]?.stringValue == python["reason"] as? String, "\(label): \(python)")
            if python["errorCode"] is NSNull {
                #expect(
                    fields["variant"]?.stringValue ?? "" == python["variant"] as? String ?? "", "\(label): \(python)")
                let pythonValue = try JSONSerialization.data(withJSONObject: ["v": python["value"]!])
                #expect(
                    String(decoding: pythonValue, as: UTF8.self) == "{\"v\":\(fields["value"]!)}", "\(label): \(python)"
                )
            }
        }
    }
}
