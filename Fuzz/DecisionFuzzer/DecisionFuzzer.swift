import CLinuxSupport
import CapabilityPolicy
import DecisionService
import FuzzSupport
import Glibc
import LinuxBackends
import LinuxPolicy
import Plumbing

/// What capctld reads from a client: any bytes, sent on a real connection to a `DecisionService`
/// (the varlink messages, through the JSON reader, into calls of `org.capctl.gates` and
/// `org.varlink.service` on a small policy), must end in replies, errors or a closed connection:
/// never a crash, and never a connection the service keeps once the client has closed its side.
enum DecisionTarget {
    /// The fuzzer's directory: the policy, and the socket beside it. Under /tmp (a socket's path
    /// has room for 107 bytes, which a deep build folder could exceed), removed at exit.
    static let directory: String = {
        var template = Array("/tmp/capctl-decision-fuzzer-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { fatalError("cannot make a directory for the fuzzer") }
        atexit {
            for file in ["/run/capctld.sock", "/policy.yaml"] { unlink(DecisionTarget.directory + file) }
            rmdir(DecisionTarget.directory + "/run")
            rmdir(DecisionTarget.directory)
        }
        return String(cString: made)
    }()

    /// The service, started once per process on a socket in ``directory``.
    static let socket: String = {
        let policy = """
            capabilities:
              is-root: { kind: user, user: root }
              operators: { kind: group, group: "4242" }
              bind: { kind: process-capability, capability: CAP_NET_BIND_SERVICE }
              tmp: { kind: file, path: /tmp, access: [read] }
            flags:
              inline: { flags: { beta: { state: ENABLED, variants: { "on": true, "off": false }, defaultVariant: "on" } } }
            gates:
              root-only: { require: is-root, description: Root only. }
              either: { require: { any-of: [operators, { not: is-root }] } }
              quiet: { require: { all-of: [{ silent: bind }, tmp, { flag: beta }] } }
            """
        guard let file = fopen(directory + "/policy.yaml", "w") else { fatalError("cannot write the policy") }
        fputs(policy, file)
        fclose(file)
        let store = PolicyStore(
            searchPath: PolicySearchPath(directories: [directory], userDirectory: nil), environment: .linux)
        guard store.current != nil else { fatalError("the fuzzer's policy does not load: \(store.problems)") }
        // The socket apart from the policy: a new file beside it would make the store reload.
        guard mkdir(directory + "/run", 0o700) == 0 else { fatalError("cannot make the socket's directory") }
        let path = directory + "/run/capctld.sock"
        let listener: ClientListener
        do {
            listener = try ClientListener(path: path, refusal: DecisionService.busyRefusal)
        } catch {
            fatalError("cannot listen: \(error)")
        }
        // Records go nowhere (counted): the trail is not what is fuzzed.
        let service = DecisionService(
            policy: store, audit: AuditTrail(destination: .syslog(path: directory + "/no-log")), listener: listener,
            idleTimeout: .seconds(5), metricsExposition: { "" })
        _ = DetachedThread.start(named: "fuzz-accept") { try? listener.run { client in service.serve(client) } }
        return path
    }()

    /// Sends `bytes`, closes the sending side, and reads until the service closes the connection.
    static func send(_ bytes: [UInt8]) {
        let connection = clinux_unix_socket(socket, Int32(SOCK_STREAM.rawValue), CLINUX_UNIX_CONNECT)
        guard connection >= 0 else { fatalError("cannot connect to the service") }
        defer { close(connection) }
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes {
                Glibc.send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }  // the service closed first: what it sent is read below
            sent += count
        }
        shutdown(connection, Int32(SHUT_WR))
        // The service must end the connection on its own: 10 s is twice its idle timeout.
        var entry = pollfd(fd: connection, events: Int16(POLLIN), revents: 0)
        var chunk = [UInt8](repeating: 0, count: 65536)
        let deadline = ContinuousClock.now + .seconds(10)
        while true {
            let remaining = deadline - .now
            guard remaining > .zero else {
                fatalError("the service kept a connection whose client had closed its side: \(bytes.count) bytes")
            }
            let ready = poll(&entry, 1, Int32(remaining.components.seconds * 1000 + 1))
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { continue }
            let count = recv(connection, &chunk, chunk.count, 0)
            if count < 0, errno == EINTR { continue }
            if count <= 0 { return }
        }
    }
}

/// The service starts before the first input, so no input is charged with its setup.
@_cdecl("LLVMFuzzerInitialize")
public func decisionFuzzerInitialize(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>
) -> Int32 {
    _ = DecisionTarget.socket
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func decisionFuzzerInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    DecisionTarget.send(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}

#if !FUZZING
    @main
    struct DecisionFuzzerReplay {
        static func main() { FuzzDriver.replay(Array(CommandLine.arguments.dropFirst()), through: DecisionTarget.send) }
    }
#endif
