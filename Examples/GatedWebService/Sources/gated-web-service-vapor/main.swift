// gated-web-service-vapor: the gated web service of README.md in Vapor 4, with the same policy and
// routes as gated-web-service (Hummingbird).
//
//     gated-web-service-vapor --policy policy.yaml [--host 127.0.0.1] [--port 8080] [--pam-service capctl]
//                             [--audit-socket PATH]
import CapabilityPolicy
import Foundation
import LinuxPolicy
import RouteGates
import Vapor
import VaporGates

func value(_ option: String) -> String? {
    guard let index = CommandLine.arguments.firstIndex(of: option), index + 1 < CommandLine.arguments.count else {
        return nil
    }
    return CommandLine.arguments[index + 1]
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("gated-web-service-vapor: \(message)\n".utf8))
    exit(1)
}

guard let policyPath = value("--policy") else {
    fail("usage: gated-web-service-vapor --policy FILE [--host ADDRESS] [--port N] [--pam-service NAME]")
}
let store = PolicyStore(files: [policyPath], environment: .linux)
guard store.current != nil else { fail(store.problems.map(\.description).joined(separator: "\n")) }
let audit = AuditTrail(
    destination: value("--audit-socket").map { .syslog(path: $0) } ?? .system, identifier: "gated-web-service",
    limitPerUser: .service)

// Vapor reads its own command line: it is given only its defaults.
let app = try await Application.make(Environment(name: "production", arguments: ["serve"]))
app.http.server.configuration.hostname = value("--host") ?? "127.0.0.1"
app.http.server.configuration.port = Int(value("--port") ?? "8080") ?? 8080
let authenticated: any RoutesBuilder
do {
    let check = try PAMPasswordCheck(service: value("--pam-service") ?? "capctl")
    authenticated = app.grouped(try PAMBasicAuthenticator(check: check, realm: "gated-web-service"))
} catch {
    fail("\(error)")
}
func gate(_ name: String) -> RouteGate {
    RouteGate(name, policy: store, audit: audit, headerAttributes: ["X-Tier": "tier"], realm: "gated-web-service")
}
app.get("health") { _ in "ok\n" }
authenticated.gated(by: gate("status"), user: HostUser.self).get("status") { request in
    "running, as \(request.auth.get(HostUser.self)?.name ?? "nobody") may see\n"
}
authenticated.gated(by: gate("reports"), user: HostUser.self).get("reports") { _ in "the new reports\n" }
authenticated.gated(by: gate("deploy"), user: HostUser.self).post("deploy") { request in
    "deployed for \(request.auth.get(HostUser.self)?.name ?? "nobody")\n"
}
authenticated.gated(by: gate("rotate-keys"), user: HostUser.self).post("rotate-keys") { _ in "keys rotated\n" }
do {
    try await app.execute()
} catch {
    fail("\(error)")
}
try await app.asyncShutdown()
store.shutdown()
audit.flush(all: true)
