// gated-daemon: a small root service that restarts "units" for unprivileged clients, each
// request gated by a policy gate decided for that client (its user and groups, from the socket).
//
//     gated-daemon --socket /run/gated.sock --policy /etc/gated/policy.yaml [--log FILE] [--audit-socket PATH]
//
// Every decision is recorded in the journal, or the system log (authpriv) where none runs; `--audit-socket PATH`
// sends records to that syslog socket instead, and the policy's `audit:` says which are recorded.
//
// Requests are one line, `restart NAME`; replies are one line, `ok: ...`, `denied: ...` or
// `error: ...` (Docs/Example.md). The restart here is a line appended to the log: the point is
// who may ask, which the gate `restart-unit` decides.
import CapabilityPolicy
import Foundation
import LinuxBackends
import LinuxPolicy
import ProcedureCore

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

guard let socketPath = value("--socket"), let policyPath = value("--policy") else {
    fail("usage: gated-daemon --socket PATH --policy FILE [--log FILE]")
}
let policy: LoadedPolicy
let listener: ClientListener
do {
    policy = try LoadedPolicy(
        PolicyLoader.load(files: [policyPath], environment: .linux), options: PolicyOptions(watchesFlagFiles: false))
    listener = try ClientListener(path: socketPath)
} catch {
    fail("\(error)")
}
/// What serves each client.
struct Service: Sendable {
    let policy: LoadedPolicy
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
        let log = log
        do {
            // Whatever the request says of who is asking, the gate is decided for the socket's peer.
            let serve = try ServeClientRequest(client, policy: policy, gate: "restart-unit", audit: audit) { client in
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

let service = Service(
    policy: policy, log: value("--log"),
    audit: AuditTrail(
        level: policy.policy.audit?.level ?? .all,
        destination: value("--audit-socket").map { .syslog(path: $0) } ?? .system, identifier: "gated-daemon"))
print("listening on \(socketPath)")
fflush(nil)
// Each client is served on a thread of its own, within the listener's limits (16 connections per
// user, 256 in all, 10 s to send a request): a silent client holds up nobody else.
do {
    try listener.run { client in service.serve(client) }
} catch {
    fail("\(error)")
}
