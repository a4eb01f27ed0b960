import CapabilityPolicy
import Foundation
import RouteGates
import Testing
import Vapor
import VaporGates
import VaporTesting
import WebTestSupport

/// The test's stand-in for a login: the user an `X-Test-User` header names (a request with Basic
/// credentials is logged in by PAM instead).
struct TestUserAuthenticator: AsyncRequestAuthenticator {
    func authenticate(request: Request) async throws {
        guard !request.auth.has(HostUser.self), let name = request.headers.first(name: "X-Test-User") else { return }
        request.auth.login(HostUser(name: name))
    }
}

enum GateForm: CaseIterable, Sendable { case middleware, routeLevel }

/// A route `/GATE` per gate of the matrix, each behind its gate, and an ungated `/open`.
func configure(_ app: Application, _ fixture: WebGateFixture, form: GateForm) throws {
    let check = try PAMPasswordCheck(service: "web", serviceDirectory: fixture.pamDirectory)
    let authenticated = app.grouped(try PAMBasicAuthenticator(check: check, realm: "tests"), TestUserAuthenticator())
    app.get("open") { _ in "open" }
    for gate in RouteCase.gates {
        let routeGate = RouteGate(gate, policy: fixture.store, headerAttributes: ["X-Tier": "tier"], realm: "tests")
        switch form {
        case .middleware:
            authenticated.grouped(PolicyGateMiddleware(routeGate, user: HostUser.self)).get(
                PathComponent(stringLiteral: gate)
            ) {
                _ in "passed"
            }
        case .routeLevel:
            authenticated.gated(by: routeGate, user: HostUser.self).get(PathComponent(stringLiteral: gate)) { _ in
                "passed"
            }
        }
    }
}

/// What `withApp` configures an application with.
func configuration(_ fixture: WebGateFixture, form: GateForm) -> @Sendable (Application) async throws -> Void {
    { app in try configure(app, fixture, form: form) }
}

func headers(for routeCase: RouteCase) -> HTTPHeaders {
    var fields = HTTPHeaders()
    if let password = routeCase.password, let user = routeCase.user {
        fields.basicAuthorization = BasicAuthorization(username: user, password: password)
    } else if let user = routeCase.user {
        fields.add(name: "X-Test-User", value: user)
    }
    if let tier = routeCase.tier { fields.add(name: "X-Tier", value: tier) }
    return fields
}

@Suite("Vapor route gates, over real requests", .timeLimit(.minutes(2)))
struct PolicyGateMiddlewareTests {
    @Test(
        "every outcome for every identity, in each form: 200 / 403 / 503 / 401, the undecided never passing",
        arguments: GateForm.allCases)
    func matrix(form: GateForm) async throws {
        let fixture = try WebGateFixture()
        try await withApp(configure: configuration(fixture, form: form)) { app in
            let tester = try app.testing(method: .running(hostname: "127.0.0.1", port: 0))
            for routeCase in RouteCase.matrix where !routeCase.needsPAM || WebGateFixture.pamMatrix != nil {
                try await tester.test(.GET, routeCase.gate, headers: headers(for: routeCase)) { response in
                    #expect(Int(response.status.code) == routeCase.status, "\(routeCase)")
                    #expect((response.body.string == "passed") == (routeCase.status == 200), "\(routeCase)")
                    if routeCase.status == 401 {
                        #expect(
                            response.headers.first(name: .wwwAuthenticate)?.hasPrefix("Basic realm=\"tests\"") == true,
                            "\(routeCase)")
                    }
                }
            }
            try await tester.test(.GET, "open") { #expect($0.status == .ok) }
        }
    }

    @Test("a denial tells the client the outcome and the gate's description, never the reasons")
    func denialBody() async throws {
        let fixture = try WebGateFixture()
        try await withApp(configure: configuration(fixture, form: .middleware)) { app in
            let tester = try app.testing(method: .running(hostname: "127.0.0.1", port: 0))
            try await tester.test(.GET, "members", headers: ["X-Test-User": "nobody"]) { response in
                #expect(response.status == .forbidden)
                #expect(response.body.string.contains("members: fails (For the root group)"), "\(response.body.string)")
                #expect(!response.body.string.contains("root-group"))
            }
        }
    }

    @Test("no policy loaded: every gated request is 503, whoever asks")
    func noPolicy() async throws {
        let fixture = try WebGateFixture(policy: "gates: { members: { require: no-such-capability } }\n")
        #expect(fixture.store.current == nil)
        try await withApp(configure: configuration(fixture, form: .middleware)) { app in
            let tester = try app.testing(method: .running(hostname: "127.0.0.1", port: 0))
            for user in ["root", "nobody"] {
                try await tester.test(.GET, "members", headers: ["X-Test-User": user]) {
                    #expect($0.status == .serviceUnavailable)
                }
            }
        }
    }
}
