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
