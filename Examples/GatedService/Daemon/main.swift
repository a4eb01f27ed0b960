// gated-daemon: a small root service that restarts "units" for unprivileged clients, each
// request gated by a policy gate decided for that client (its user and groups, from the socket).
// The model to copy for a root service of your own (Docs/RootService.md walks through it).
//
//     gated-daemon --socket /run/gated.sock --policy /etc/gated/policy.yaml [--log FILE] [--audit-socket PATH]
//
// Every decision is recorded in the journal, or the system log (authpriv) where none runs, with
// the unit asked for; `--audit-socket PATH` sends records to that syslog socket instead, and the
// policy's `audit:` says which are recorded. The policy file is followed: a rule changed or
// revoked takes effect for the next request. SIGTERM stops accepting and lets the clients being
// served finish.
//
// Requests are one line, `restart NAME`; replies are one line, `ok: ...`, `denied: ...` or
// `error: ...` (Docs/Example.md). The restart here is a line appended to the log: the point is
// who may ask, which the gate `restart-unit` decides.
import CapabilityPolicy
import Foundation
import LinuxBackends
import LinuxPolicy
import Logging
import ProcedureCore
import RemoteFlags
import ServiceLifecycle

func value(_ option: String) -> String? {
    guard let index = CommandLine.arguments.firstIndex(of: option), index + 1 < CommandLine.arguments.count else {
        return nil
    }
    return CommandLine.arguments[index + 1]
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("gated-daemon: \(message)\n".utf8))
    exit(1)
}

/// Serves each client of the socket: one request, decided for the client, then its reply.
struct RestartService: Service {
    let listener: ClientListener
    let policy: PolicyStore
    let log: String?
    let audit: AuditTrail
    let queue = ProcedureQueue()

    /// `restart NAME`, where NAME is a unit's name: letters, digits and `@ . _ -`, at most 128 bytes.
    static func unit(in request: String) -> String? {
        let words = request.split(separator: " ", omittingEmptySubsequences: false)
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@._-".utf8)
        guard words.count == 2, words[0] == "restart", !words[1].isEmpty, words[1].utf8.count <= 128,
            words[1].utf8.allSatisfy(allowed.contains)
        else { return nil }
        return String(words[1])
    }

    /// Each client on a thread of its own, within the listener's limits (16 connections per user,
    /// 256 in all, 10 s to send a request): a silent client holds up nobody else. Returns at
    /// SIGTERM, once the clients being served are done.
    func run() async throws {
        try await listener.serve { client in serve(client) }
    }

    func serve(_ client: ClientConnection) {
        let request: String
        do {
            request = try client.readRequest()
        } catch {
            client.reply("error: \(error)")
            return
        }
        guard let unit = Self.unit(in: request) else {
            client.reply("error: unknown request (send: restart NAME)")
            return
        }
        // The policy in force now: a change of the file counts from the next request on.
        guard let current = policy.current else {
            client.reply("error: no policy has loaded")
            return
        }
        let log = log
        do {
            // Whatever the request says of who is asking, the gate is decided for the socket's peer.
            // The client is told the outcome; the reasons, and the unit, go to the audit record.
            let serve = try ServeClientRequest(
                client, policy: current, gate: "restart-unit", audit: audit,
                details: [AuditRecord.Detail("unit", unit)]
            ) { client in
                if let log, let handle = FileHandle(forWritingAtPath: log) {
                    handle.seekToEndOfFile()
                    handle.write(Data("restarted \(unit) for \(client.subject)\n".utf8))
                    try handle.close()
                }
                return "restarted \(unit)"
            }
            queue.addProcedure(serve)
        } catch {
            client.reply("error: \(error)")
        }
    }
}

guard let socketPath = value("--socket"), let policyPath = value("--policy") else {
    fail("usage: gated-daemon --socket PATH --policy FILE [--log FILE] [--audit-socket PATH]")
}
// The policy file, followed (and its flag files and services, fetched with RemoteFlags'
// client): what the gate is decided with.
var environment = PolicyEnvironment.linux
environment.httpFlagSource = { HTTPFlagSource($0) }
let store = PolicyStore(files: [policyPath], environment: environment)
guard let loaded = store.current else { fail(store.problems.map(\.description).joined(separator: "\n")) }
let listener: ClientListener
do {
    listener = try ClientListener(path: socketPath)
} catch {
    fail("\(error)")
}
// Each user's requests write at most 100 records per 30 s, then a summary: one client looping
// requests cannot crowd the others out of the journal's rate limit. Lost records are said.
let audit = AuditTrail(
    level: loaded.policy.audit?.level ?? .all,
    destination: value("--audit-socket").map { .syslog(path: $0) } ?? .system, identifier: "gated-daemon",
    limitPerUser: .service, onLostRecords: { FileHandle.standardError.write(Data("gated-daemon: \($0)\n".utf8)) })
let service = RestartService(listener: listener, policy: store, log: value("--log"), audit: audit)
print("listening on \(socketPath)")
fflush(nil)
// Under systemd (Type=notify): ready now, and told when stopping.
ServiceNotification.send("READY=1")
// SIGTERM and SIGINT shut the group down in reverse order: the service stops accepting and lets
// its clients finish, then the store stops following the policy file, then the audit trail
// writes its last summaries.
var logger = Logger(label: "gated-daemon")
logger.logLevel = .warning
let group = ServiceGroup(
    configuration: ServiceGroupConfiguration(
        services: [audit, store, service], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
do {
    try await group.run()
} catch {
    fail("\(error)")
}
print("stopped")
