import CapabilityPolicy
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdAuth
import HummingbirdGates
import HummingbirdTesting
import RouteGates
import Testing
import WebTestSupport

typealias Context = BasicAuthRequestContext<HostUser>

/// The test's stand-in for a login: the user an `X-Test-User` header names (a request with Basic
/// credentials is logged in by PAM instead).
struct TestUserAuthenticator: AuthenticatorMiddleware {
    typealias Context = HummingbirdGatesTests.Context
    func authenticate(request: Request, context: Context) async throws -> HostUser? {
        guard context.identity == nil, let name = HTTPField.Name("X-Test-User") else { return context.identity }
        return request.headers[name].map { HostUser(name: $0) }
    }
}

/// A router with a route `/GATE` per gate of the matrix, each behind its gate, and an ungated `/open`.
func makeRouter(_ fixture: WebGateFixture, form: GateForm) throws -> Router<Context> {
    let router = Router(context: Context.self)
    let check = try PAMPasswordCheck(service: "web", serviceDirectory: fixture.pamDirectory)
    router.add(middleware: try PAMBasicAuthenticator<Context>(check: check, realm: "tests"))
    router.add(middleware: TestUserAuthenticator())
    router.get("open") { _, _ in "open" }
    for gate in RouteCase.gates {
        let routeGate = RouteGate(gate, policy: fixture.store, headerAttributes: ["X-Tier": "tier"], realm: "tests")
        switch form {
        case .middleware:
            router.group(RouterPath(gate)).add(middleware: PolicyGateMiddleware<Context>(routeGate))
                .get { _, _ in "passed" }
        case .routeLevel:
            router.gated(by: routeGate).get(RouterPath(gate)) { _, _ in "passed" }
        case .authorizationPolicy:
            router.group(RouterPath(gate))
                .add(
                    middleware: AuthorizationPolicyMiddleware(
                        PolicyAuthorization<HostUser>(routeGate), context: Context.self)
                )
                .get { _, _ in "passed" }
        }
    }
    return router
}

enum GateForm: CaseIterable, Sendable { case middleware, routeLevel, authorizationPolicy }

func headers(for routeCase: RouteCase) -> HTTPFields {
    var fields = HTTPFields()
    if let password = routeCase.password, let user = routeCase.user {
        fields[.authorization] = "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
    } else if let user = routeCase.user {
        fields[HTTPField.Name("X-Test-User")!] = user
    }
    if let tier = routeCase.tier { fields[HTTPField.Name("X-Tier")!] = tier }
    return fields
}

@Suite("Hummingbird route gates, over real requests", .timeLimit(.minutes(2)))
struct PolicyGateMiddlewareTests {
    @Test(
        "every outcome for every identity, in each form: 200 / 403 / 503 / 401, the undecided never passing",
        arguments: GateForm.allCases)
    func matrix(form: GateForm) async throws {
        let fixture = try WebGateFixture()
        let app = Application(router: try makeRouter(fixture, form: form))
        try await app.test(.live) { client in
            for routeCase in RouteCase.matrix where !routeCase.needsPAM || WebGateFixture.pamMatrix != nil {
                // The AuthorizationPolicy adapter sees only authenticated requests: HummingbirdAuth's own 401.
                try await client.execute(uri: "/" + routeCase.gate, method: .get, headers: headers(for: routeCase)) {
                    response in
                    #expect(Int(response.status.code) == routeCase.status, "\(routeCase)")
                    if routeCase.status == 200 {
                        #expect(String(buffer: response.body) == "passed", "\(routeCase)")
                    } else {
                        #expect(String(buffer: response.body) != "passed", "\(routeCase)")
                    }
                    if routeCase.status == 401, form != .authorizationPolicy || routeCase.user != nil {
                        #expect(
                            response.headers[.wwwAuthenticate]?.hasPrefix("Basic realm=\"tests\"") == true,
                            "\(routeCase)")
                    }
                }
            }
            try await client.execute(uri: "/open", method: .get) { response in
                #expect(response.status == .ok)
            }
        }
    }

    @Test("a denial tells the client the outcome and the gate's description, never the reasons")
    func denialBody() async throws {
        let fixture = try WebGateFixture()
        let app = Application(router: try makeRouter(fixture, form: .middleware))
        try await app.test(.live) { client in
            try await client.execute(uri: "/members", method: .get, headers: [HTTPField.Name("X-Test-User")!: "nobody"])
            {
                response in
                #expect(response.status == .forbidden)
                let body = String(buffer: response.body)
                #expect(body.contains("members: fails (For the root group)"), "\(body)")
                #expect(!body.contains("root-group"), "the reasons name the capability: \(body)")
            }
        }
    }

    @Test("no policy loaded: every gated request is 503, whoever asks")
    func noPolicy() async throws {
        let fixture = try WebGateFixture(policy: "gates: { members: { require: no-such-capability } }\n")
        #expect(fixture.store.current == nil)
        let app = Application(router: try makeRouter(fixture, form: .middleware))
        try await app.test(.live) { client in
            for user in ["root", "nobody"] {
                try await client.execute(uri: "/members", method: .get, headers: [HTTPField.Name("X-Test-User")!: user])
                {
                    response in
                    #expect(response.status == .serviceUnavailable)
                }
            }
        }
    }

    @Test("an edit of the policy counts from the next request")
    func followsEdits() async throws {
        let fixture = try WebGateFixture()
        let app = Application(router: try makeRouter(fixture, form: .middleware))
        let nobody: HTTPFields = [HTTPField.Name("X-Test-User")!: "nobody"]
        try await app.test(.live) { client in
            try await client.execute(uri: "/beta", method: .get, headers: nobody) { #expect($0.status == .forbidden) }
            let edited = try String(contentsOfFile: fixture.policyFile, encoding: .utf8)
                .replacingOccurrences(
                    of: "beta: { require: { flag: beta } }", with: "beta: { require: { not: { flag: beta } } }")
            let revision = fixture.store.current?.policy.revision
            try edited.write(toFile: fixture.policyFile, atomically: true, encoding: .utf8)
            fixture.store.reload()
            #expect(fixture.store.current?.policy.revision != revision)
            try await client.execute(uri: "/beta", method: .get, headers: nobody) { #expect($0.status == .ok) }
        }
    }
}
