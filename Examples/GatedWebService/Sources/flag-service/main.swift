// flag-service: a Hummingbird 2 service that evaluates OpenFeature flags for each request, with
// nothing of this framework but FeatureFlags (README.md, "Flags in any Swift service").
//
//     flag-service --flags service-flags.json [--selector flagSetId=shop] [--port 8081]
//
// The flags are flagd's format, evaluated in the process and followed: an edit counts from the next
// request, and each change is logged. Settings come from APP_* environment variables (APP_PAGE_SIZE).
// A request's user (X-User, set by the proxy in front) and tier (X-Tier) target its flags.
import FeatureFlags
import FlagService
import Foundation
import Hummingbird

func value(_ option: String) -> String? {
    guard let index = CommandLine.arguments.firstIndex(of: option), index + 1 < CommandLine.arguments.count else {
        return nil
    }
    return CommandLine.arguments[index + 1]
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("flag-service: \(message)\n".utf8))
    exit(1)
}

guard let flagsPath = value("--flags") else {
    fail("usage: flag-service --flags FILE [--selector SELECTOR] [--host ADDRESS] [--port N]")
}
let selector: FlagSelector?
do {
    selector = try value("--selector").map(FlagSelector.init)
} catch {
    fail("\(error)")
}
let flags = FlagStore(sources: [.file(flagsPath)], selector: selector)
if let problem = flags.loadFailures.first { fail("\(problem)") }

let api = OpenFeatureAPI.shared
// Each request's context travels in its ServiceContext, with its trace.
api.setTransactionContextPropagator(ServiceContextTransactionContextPropagator())
await api.setProvider(flags)
await api.setProvider(EnvironmentFlagProvider(prefix: "APP_"), domain: "env")
// Provider events: a reloaded file, or one that no longer parses (its last good flags stay in use).
Task {
    for await event in api.events() {
        print("flags: \(event.kind) \(event.flagsChanged.sorted().joined(separator: " ")) \(event.message ?? "")")
        fflush(nil)
    }
}

let port = Int(value("--port") ?? "8081") ?? 8081
let app = Application(
    router: FlagServiceRoutes.router(api: api),
    configuration: ApplicationConfiguration(address: .hostname(value("--host") ?? "127.0.0.1", port: port)),
    onServerRunning: { channel in
        print("listening on \(channel.localAddress.map { "\($0)" } ?? "?")")
        fflush(nil)
    })
do {
    try await app.runService()
} catch {
    fail("\(error)")
}
