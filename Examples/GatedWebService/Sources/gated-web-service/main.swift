// gated-web-service: a Hummingbird 2 service whose routes are gated by a policy file (README.md).
//
//     gated-web-service --policy policy.yaml [--host 127.0.0.1] [--port 8080] [--pam-service capctl]
//                       [--audit-socket PATH] [--proxy-user-header X-Remote-User]
//
// Users log in by HTTP Basic, their password checked by PAM (the service `capctl` by default);
// behind a reverse proxy that logs them in itself, `--proxy-user-header` names the header the proxy
// sets instead (only ever listen on loopback then: anyone who can reach the port can set a header).
// Each gated route is decided for the request's user by the policy's gate of the same name; the
// policy and its flag file are followed, so an edit counts from the next request. Every decision is
// recorded in the journal (or the system log), or on `--audit-socket`.
//
// With OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) set, each request and
// each gate decision is a span exported over OTLP/HTTP to that collector (swift-otel; the other
// OTEL_* variables apply, OTEL_EXPORTER_OTLP_PROTOCOL=http/json among them).
import CapabilityPolicy
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdAuth
import HummingbirdGates
import LinuxPolicy
import OTel
import RouteGates
import ServiceLifecycle

func value(_ option: String) -> String? {
    guard let index = CommandLine.arguments.firstIndex(of: option), index + 1 < CommandLine.arguments.count else {
        return nil
    }
    return CommandLine.arguments[index + 1]
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("gated-web-service: \(message)\n".utf8))
    exit(1)
}

/// The user a trusted reverse proxy names in a header, as the request's identity.
struct ProxyUserAuthenticator<Context: AuthRequestContext>: AuthenticatorMiddleware where Context.Identity == HostUser {
    let header: HTTPField.Name

    func authenticate(request: Request, context: Context) async throws -> HostUser? {
        request.headers[header].map { HostUser(name: $0) }
    }
}

guard let policyPath = value("--policy") else {
    fail(
        "usage: gated-web-service --policy FILE [--host ADDRESS] [--port N] [--pam-service NAME] [--audit-socket PATH]"
            + " [--proxy-user-header NAME]")
}
let store = PolicyStore(files: [policyPath], environment: .linux)
guard store.current != nil else { fail(store.problems.map(\.description).joined(separator: "\n")) }
let audit = AuditTrail(
    destination: value("--audit-socket").map { .syslog(path: $0) } ?? .system, identifier: "gated-web-service",
    limitPerUser: .service)

// Traces only when a collector is named: a service without one exports nothing and logs no
// failed exports.
let environment = ProcessInfo.processInfo.environment
var observability: (any Service)?
if environment["OTEL_EXPORTER_OTLP_ENDPOINT"] != nil || environment["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"] != nil {
    var configuration = OTel.Configuration.default
    configuration.serviceName = "gated-web-service"
    configuration.logs.enabled = false
    configuration.metrics.enabled = false
    do {
        observability = try OTel.bootstrap(configuration: configuration)
    } catch {
        fail("OpenTelemetry: \(error)")
    }
}

typealias Context = BasicAuthRequestContext<HostUser>
let router = Router(context: Context.self)
if observability != nil {
    // A span per request, the gate's decision a child of it.
    router.add(middleware: TracingMiddleware())
}
if let header = value("--proxy-user-header") {
    guard let name = HTTPField.Name(header) else { fail("\"\(header)\" is not a header name") }
    router.add(middleware: ProxyUserAuthenticator<Context>(header: name))
} else {
    do {
        let check = try PAMPasswordCheck(service: value("--pam-service") ?? "capctl")
        router.add(middleware: try PAMBasicAuthenticator<Context>(check: check, realm: "gated-web-service"))
    } catch {
        fail("\(error)")
    }
}
func gate(_ name: String) -> RouteGate {
    RouteGate(name, policy: store, audit: audit, headerAttributes: ["X-Tier": "tier"], realm: "gated-web-service")
}
// Not gated: for a load balancer (and for comparing a gated route's cost with).
router.get("health") { _, _ in "ok\n" }
router.gated(by: gate("status")).get("status") { _, context in
    "running, as \(context.identity?.name ?? "nobody") may see\n"
}
router.gated(by: gate("reports")).get("reports") { _, _ in "the new reports\n" }
router.gated(by: gate("deploy")).post("deploy") { _, context in
    "deployed for \(context.identity?.name ?? "nobody")\n"
}
router.gated(by: gate("rotate-keys")).post("rotate-keys") { _, _ in "keys rotated\n" }

let port = Int(value("--port") ?? "8080") ?? 8080
var app = Application(
    router: router,
    configuration: ApplicationConfiguration(address: .hostname(value("--host") ?? "127.0.0.1", port: port)),
    onServerRunning: { channel in
        print("listening on \(channel.localAddress.map { "\($0)" } ?? "?")")
        fflush(nil)
    })
// The store follows the policy, the trail writes its last summaries: both stop with the server.
app.addServices(store, audit)
if let observability { app.addServices(observability) }
do {
    try await app.runService()
} catch {
    fail("\(error)")
}
