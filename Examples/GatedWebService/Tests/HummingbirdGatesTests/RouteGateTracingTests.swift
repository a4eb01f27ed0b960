import CapabilityPolicy
import HTTPTypes
import Hummingbird
import HummingbirdAuth
import HummingbirdGates
import HummingbirdTesting
import InMemoryTracing
import RouteGates
import Testing
import Tracing
import WebTestSupport

/// The tracer of this test process, bootstrapped once: every test here then runs traced, which
/// changes no decision (the matrix passes either way).
let tracer: InMemoryTracer = {
    let tracer = InMemoryTracer()
    InstrumentationSystem.bootstrap(tracer)
    return tracer
}()

@Suite("Route gates in a trace", .timeLimit(.minutes(2)))
struct RouteGateTracingTests {
    @Test("a request's span, the route gate's under it, the gate's under that, with the outcome and the flags read")
    func spans() async throws {
        _ = tracer
        let fixture = try WebGateFixture()
        let router = Router(context: Context.self)
        router.add(middleware: TracingMiddleware())
        router.add(middleware: TestUserAuthenticator())
        let path = "traced-\(UInt64.random(in: 0...UInt64.max))"
        router.gated(by: RouteGate("beta", policy: fixture.store, headerAttributes: ["X-Tier": "tier"]))
            .get(RouterPath(path)) { _, _ in "passed" }
        let app = Application(router: router)
        try await app.test(.live) { client in
            let nobody: HTTPFields = [HTTPField.Name("X-Test-User")!: "nobody", HTTPField.Name("X-Tier")!: "gamma"]
            try await client.execute(uri: "/" + path, method: .get, headers: nobody) {
                #expect($0.status == .forbidden)
            }
        }
        let spans = tracer.finishedSpans
        let route = try #require(
            spans.first {
                $0.operationName == "route gate beta"
                    && $0.attributes["url.path"]?.toSpanAttribute() == .string("/" + path)
            })
        let request = try #require(spans.first { $0.spanContext.spanID == route.spanContext.parentSpanID })
        #expect(request.traceID == route.traceID)
        let gate = try #require(spans.first { $0.spanContext.parentSpanID == route.spanContext.spanID })
        #expect(gate.operationName == "gate beta")
        #expect(route.attributes["http.response.status_code"]?.toSpanAttribute() == .int64(403))
        #expect(route.attributes["enduser.id"]?.toSpanAttribute() == .string("nobody"))
        #expect(gate.attributes["capctl.outcome"]?.toSpanAttribute() == .string("fails"))
        #expect(gate.attributes["capctl.gate"]?.toSpanAttribute() == .string("beta"))
        let flag = try #require(gate.events.first { $0.name == "feature_flag.evaluation" })
        #expect(flag.attributes["feature_flag.key"]?.toSpanAttribute() == .string("beta"))
        #expect(flag.attributes["feature_flag.result.value"]?.toSpanAttribute() == .string("false"))
    }

    @Test("asked for, a child span per requirement part, each with its verdict; not asked, none")
    func requirementSpans() async throws {
        _ = tracer
        var options = PolicyOptions()
        options.tracesRequirements = true
        let traced = try WebGateFixture(options: options)
        let untraced = try WebGateFixture()
        // `either` is any-of the flag `broken` (undecided) and the group root (root is a member).
        let tracedPath = "/parts-\(UInt64.random(in: 0...UInt64.max))"
        let untracedPath = "/no-parts-\(UInt64.random(in: 0...UInt64.max))"
        let decision = await RouteGate("either", policy: traced.store).decide(
            RouteRequest(user: "root", method: "GET", path: tracedPath))
        #expect(decision.response == .pass)
        _ = await RouteGate("either", policy: untraced.store).decide(
            RouteRequest(user: "root", method: "GET", path: untracedPath))

        let spans = tracer.finishedSpans
        func gateSpan(under path: String) throws -> FinishedInMemorySpan {
            let route = try #require(spans.first { $0.attributes["url.path"]?.toSpanAttribute() == .string(path) })
            return try #require(spans.first { $0.spanContext.parentSpanID == route.spanContext.spanID })
        }
        let gate = try gateSpan(under: tracedPath)
        #expect(gate.operationName == "gate either")
        let parts = spans.filter { $0.spanContext.parentSpanID == gate.spanContext.spanID }
        #expect(Set(parts.map(\.operationName)) == ["flag broken", "capability root-group"])
        let flag = try #require(parts.first { $0.operationName == "flag broken" })
        #expect(flag.traceID == gate.traceID)
        #expect(flag.attributes["feature_flag.key"]?.toSpanAttribute() == .string("broken"))
        #expect(flag.attributes["capctl.result"]?.toSpanAttribute() == .string("undecided"))
        #expect(flag.status?.code == .error)
        let group = try #require(parts.first { $0.operationName == "capability root-group" })
        #expect(group.attributes["capctl.result"]?.toSpanAttribute() == .string("satisfied"))
        #expect(group.status == nil)
        #expect(group.startInstant.nanosecondsSinceEpoch >= gate.startInstant.nanosecondsSinceEpoch)
        #expect(group.endInstant.nanosecondsSinceEpoch <= gate.endInstant.nanosecondsSinceEpoch)

        let plain = try gateSpan(under: untracedPath)
        #expect(plain.operationName == "gate either")
        #expect(!spans.contains { $0.spanContext.parentSpanID == plain.spanContext.spanID })
    }

    @Test("an undecided gate marks its spans as errors")
    func undecided() async throws {
        _ = tracer
        let fixture = try WebGateFixture()
        let gate = RouteGate("broken", policy: fixture.store)
        let path = "/undecided-\(UInt64.random(in: 0...UInt64.max))"
        let decision = await gate.decide(RouteRequest(user: "root", method: "GET", path: path))
        #expect(decision.response == .unavailable)
        let route = try #require(
            tracer.finishedSpans.first { $0.attributes["url.path"]?.toSpanAttribute() == .string(path) })
        #expect(route.status?.code == .error)
        let inner = try #require(tracer.finishedSpans.first { $0.spanContext.parentSpanID == route.spanContext.spanID })
        #expect(inner.status?.code == .error)
        #expect(inner.events.contains { $0.name == "feature_flag.evaluation" && $0.attributes["error.type"] != nil })
    }
}
