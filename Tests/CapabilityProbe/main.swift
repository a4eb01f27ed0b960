// A test helper: evaluates one capability in a process of its own, so tests can run it with
// other credentials (setpriv as uid 65534) or in another network namespace (ip netns exec).
//
//     capability-probe file PATH ACCESS [any|file|directory]   ACCESS: letters of r, w, x, c, or -
//     capability-probe file-credentials UID:GID:GROUP,GROUP...   runs a file check's body as each in turn
//         (clinux_run_with_file_credentials); each prints `THREAD FSUID FSGID GROUP,GROUP` of the thread it ran on
//         (/proc/thread-self), then `caller ...` the same of the calling thread
//     capability-probe capability NAME [without-capget]         a Linux capability, such as CAP_NET_BIND_SERVICE;
//         without-capget makes capget(2) fail first (seccomp), so the status file is read instead
//     capability-probe user NAME | group NAME
//     capability-probe path                     the network path (NWPathMonitor's satisfied / unsatisfied)
//     capability-probe watch-path               each path status as it changes, until one is satisfied
//     capability-probe host HOST PORT TIMEOUT_MS
//     capability-probe polkit ACTION status|authorize|authorize-cancel [no-keep] [detail:KEY=VALUE]...
//         authorize answers each password prompt with a line of standard input (end of input
//         dismisses), prints authorize()'s status (or `cancelled`) and then status() read afresh;
//         authorize-cancel cancels the authorizing task at the first prompt instead of answering.
//         polkit's messages go to standard error as `message: TEXT`. `timeout:MS` bounds status().
//     capability-probe connect PATH            connects to a Unix socket, prints `connected`, then waits until the
//         other end closes the connection
//     capability-probe peer PATH [without-peer-pidfd]   accepts one connection; prints the peer subject and
//         CAP_NET_BIND_SERVICE's status for it; without-peer-pidfd makes SO_PEERPIDFD fail first (seccomp)
//     capability-probe exec-after-connect PATH REQUEST PROGRAM ARGUMENT...   the attack of a client that connects
//         to PATH, then execs PROGRAM (a setuid or file-capability program that waits) while a child it started sends
//         REQUEST (`\n` and `\0` written as such) on the inherited connection once the exec is done; the child prints
//         `program: uid=R,E capeff=HEX` (the exec'd process as /proc shows it) and `reply: TEXT` (up to the first NUL
//         or newline, or the close), then ends PROGRAM. With PATH `-` nothing connects: the child prints
//         `process: PID,START-TIME,UID` (UID the one before the exec) instead, and leaves PROGRAM running
//     capability-probe exec-without-peer-pidfd COMMAND ARGUMENT...   runs COMMAND with SO_PEERPIDFD failing (seccomp,
//         kept across exec): a service as it runs on a kernel before 6.5
//     capability-probe flood PATH SILENT IDLE   a stalling client's flood of a service socket (gated-daemon): SILENT
//         connections send `restart flood` and never answer the question (the first is asked before the others
//         connect); IDLE ones send half a request line. One more connection, answered either way, shows every
//         earlier one was accepted. Prints `held=H busy=B` (connections the service holds without a reply, and
//         those refused as busy), `ready`; at SIGUSR1 `open N`: how many of the held ones are still held
//     capability-probe polkit-impostor       owns org.freedesktop.PolicyKit1 on the system bus and answers every
//         CheckAuthorization "not authorized", as a fake polkitd would to open `not:` gates; prints `owner` once it
//         owns the name, then serves until killed
//
// Prints one line per status: KIND<TAB>GRANTS<TAB>REASON, GRANTS comma-separated.

import CLinuxSupport
import CSeccompRefusals
import Capabilities
import Glibc
import Locking

// The impostor reaches sd-bus through LinuxBackends' internals, which only a debug build exposes;
// the tests run debug builds, and a release build of the package builds the rest of the probe.
#if DEBUG
    @testable import LinuxBackends
#else
    import LinuxBackends
#endif

func printStatus(_ status: CapabilityStatus) {
    print(
        "\(status.kind.rawValue)\t\(status.grants.sorted().joined(separator: ","))\t\(status.cause?.name ?? "")\t\(status.reason)"
    )
    fflush(nil)
}

/// A file check's body run as another user, outside the main actor: it runs on a credential thread.
enum FileCredentialsRun {
    private final class Seen { var line = "" }

    /// `clinux_run_with_file_credentials`'s code, and what its body saw of its thread.
    nonisolated static func run(uid: UInt32, gid: UInt32, groups: [UInt32]) -> (Int32, String) {
        let seen = Seen()
        let code = withExtendedLifetime(seen) {
            clinux_run_with_file_credentials(
                uid, gid, groups, Int32(groups.count),
                { context in
                    Unmanaged<Seen>.fromOpaque(context!).takeUnretainedValue().line = threadCredentials()
                }, Unmanaged.passUnretained(seen).toOpaque())
        }
        return (code, seen.line)
    }
}

/// `THREAD FSUID FSGID GROUP,GROUP` of the calling thread, as the kernel shows them
/// (/proc/thread-self: its link names the thread, its status the fourth of each id line).
nonisolated func threadCredentials() -> String {
    var link = [CChar](repeating: 0, count: 256)
    let length = readlink("/proc/thread-self", &link, link.count - 1)
    let thread = length > 0 ? String(decoding: link[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
    let status = String(decoding: (try? FileContents.bytes(of: "/proc/thread-self/status")) ?? [], as: UTF8.self)
    func values(_ name: String) -> [Substring] {
        let line = status.split(separator: "\n").first { $0.hasPrefix(name + ":") } ?? ""
        return line.dropFirst(name.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" })
    }
    let (users, groups) = (values("Uid"), values("Gid"))
    return [
        String(thread.split(separator: "/").last ?? "?"), users.count == 4 ? String(users[3]) : "?",
        groups.count == 4 ? String(groups[3]) : "?", values("Groups").joined(separator: ","),
    ].joined(separator: " ")
}

func fail(_ message: String) -> Never {
    let line = Array("capability-probe: \(message)\n".utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(64)
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard let mode = arguments.first else { fail("usage: capability-probe file PATH ACCESS [KIND]") }

switch mode {
case "exec-after-connect", "exec-after-asking":
    guard arguments.count >= 4 else {
        fail("usage: capability-probe exec-after-connect|exec-after-asking PATH REQUEST PROGRAM ARGUMENT...")
    }
    // Without a socket (`-`), the child prints the process's reference instead of sending.
    let connection =
        arguments[1] == "-"
        ? open("/dev/null", O_RDWR | O_CLOEXEC)
        : clinux_unix_socket(arguments[1], Int32(SOCK_STREAM.rawValue), CLINUX_UNIX_CONNECT)
    guard connection >= 0 else { fail("cannot connect to \(arguments[1])") }
    if mode == "exec-after-asking" {
        // The same call first, answered before the exec, on the connection the child inherits.
        let request = Array(
            arguments[2].split(separator: "\\0", omittingEmptySubsequences: false).joined(separator: "\0").utf8)
        _ = request.withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
        var reply: [UInt8] = []
        var byte: UInt8 = 0
        while read(connection, &byte, 1) == 1, byte != 0 { reply.append(byte) }
        print("before: \(String(decoding: reply, as: UTF8.self))")
        fflush(nil)
    }
    // The child learns that the exec is done when the pipe's write end, closed by the exec, is.
    var ends: [Int32] = [0, 0]
    guard pipe(&ends) == 0 else { fail("pipe: \(String(cString: strerror(errno)))") }
    for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
    // Above 2 and apart from 3 and 4, so the child's dup2 onto 3 and 4 makes inheritable copies.
    let (socketCopy, readCopy) = (fcntl(connection, F_DUPFD_CLOEXEC, 10), fcntl(ends[0], F_DUPFD_CLOEXEC, 10))
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    posix_spawn_file_actions_adddup2(&actions, socketCopy, 3)
    posix_spawn_file_actions_adddup2(&actions, readCopy, 4)
    let childWords: [String] = [CommandLine.arguments[0], "send-after-exec", arguments[1] == "-" ? "-" : arguments[2]]
    let childArguments = childWords.map { strdup($0) } + [nil]
    var child: pid_t = 0
    let spawned = posix_spawn(&child, "/proc/self/exe", &actions, nil, childArguments, environ)
    guard spawned == 0 else { fail("cannot start the sending child: \(String(cString: strerror(spawned)))") }
    close(ends[0])
    close(readCopy)
    let program = Array(arguments.dropFirst(3))
    execv(program[0], program.map { strdup($0) } + [nil])
    fail("cannot run \(program[0]): \(String(cString: strerror(errno)))")
case "send-after-exec":
    // exec-after-connect's child: the connection is descriptor 3, the pipe's read end 4.
    guard arguments.count == 2 else {
        fail("usage: capability-probe send-after-exec REQUEST (from exec-after-connect)")
    }
    var byte: UInt8 = 0
    while read(4, &byte, 1) > 0 {}
    let program = getppid()
    let status = String(decoding: (try? FileContents.bytes(of: "/proc/\(program)/status")) ?? [], as: UTF8.self)
    func field(_ name: String) -> [Substring] {
        status.split(separator: "\n").first { $0.hasPrefix(name + ":") }?.split(whereSeparator: {
            $0 == "\t" || $0 == " "
        })
        .dropFirst().map { $0 } ?? []
    }
    let uids = field("Uid")
    print("program: uid=\(uids.first ?? "?"),\(uids.dropFirst().first ?? "?") capeff=\(field("CapEff").first ?? "?")")
    guard arguments[1] != "-" else {
        // The reference a caller would take from SO_PEERCRED before the exec: its uid, not the program's.
        let stat = String(decoding: (try? FileContents.bytes(of: "/proc/\(program)/stat")) ?? [], as: UTF8.self)
        let fields = stat.split(separator: ")").last?.split(separator: " ") ?? []
        print("process: \(program),\(fields.count > 19 ? fields[19] : "?"),\(getuid())")
        exit(0)
    }
    // Unescaped here: an argument vector cannot carry the NUL that ends a varlink message.
    let request = Array(
        arguments[1].split(separator: "\\n", omittingEmptySubsequences: false).joined(separator: "\n")
            .split(separator: "\\0", omittingEmptySubsequences: false).joined(separator: "\0").utf8)
    _ = request.withUnsafeBytes { write(3, $0.baseAddress, $0.count) }
    // Every wait has a deadline: a service that never answers gives an empty reply after 20 s.
    var deadline = timeval(tv_sec: 20, tv_usec: 0)
    setsockopt(3, SOL_SOCKET, SO_RCVTIMEO, &deadline, socklen_t(MemoryLayout<timeval>.size))
    var reply: [UInt8] = []
    while read(3, &byte, 1) == 1, byte != 0, byte != 10 { reply.append(byte) }
    print("reply: \(String(decoding: reply, as: UTF8.self))")
    fflush(nil)
    kill(program, SIGKILL)
case "exec-without-peer-pidfd":
    guard arguments.count >= 2 else { fail("usage: capability-probe exec-without-peer-pidfd COMMAND ARGUMENT...") }
    let refused = clinux_refuse_peer_pidfd()
    guard refused == 0 else { fail("cannot install the seccomp filter: \(String(cString: strerror(refused)))") }
    let command = Array(arguments.dropFirst())
    let argv = command.map { strdup($0) } + [nil]
    execv(command[0], argv)
    fail("cannot run \(command[0]): \(String(cString: strerror(errno)))")
case "file-credentials":
    // In a process of its own, so no other test's checks share its kept threads.
    for spec in arguments.dropFirst() {
        let parts = spec.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, let uid = UInt32(parts[0]), let gid = UInt32(parts[1]) else {
            fail("usage: capability-probe file-credentials UID:GID:GROUP,GROUP...")
        }
        let groups = parts[2].split(separator: ",").compactMap { UInt32($0) }
        let (code, line) = FileCredentialsRun.run(uid: uid, gid: gid, groups: groups)
        guard code == 0 else { fail("cannot run as \(spec): \(String(cString: strerror(code)))") }
        print(line)
    }
    print("caller " + threadCredentials())
case "file":
    guard arguments.count >= 3 else { fail("usage: capability-probe file PATH ACCESS [KIND]") }
    var access: FileAccess.Access = []
    for letter in arguments[2] {
        switch letter {
        case "r": access.insert(.read)
        case "w": access.insert(.write)
        case "x": access.insert(.execute)
        case "c": access.insert(.create)
        case "-": break
        default: fail("unknown access letter \(letter)")
        }
    }
    let kind = arguments.count > 3 ? FileAccess.Kind(rawValue: arguments[3]) : .any
    guard let kind else { fail("unknown kind \(arguments[3])") }
    do {
        let capability = try FileAccess(arguments[1], access: access, kind: kind)
        printStatus(await capability.resolveStatus())
    } catch {
        fail("\(error)")
    }
case "capability", "user", "group":
    let withoutCapget = mode == "capability" && arguments.count == 3 && arguments[2] == "without-capget"
    guard arguments.count == 2 || withoutCapget else { fail("usage: capability-probe \(mode) NAME") }
    if withoutCapget {
        let refused = clinux_refuse_capget()
        guard refused == 0 else { fail("cannot install the seccomp filter: \(String(cString: strerror(refused)))") }
        var mask: UInt64 = 0
        guard clinux_effective_capabilities(&mask) == EPERM else { fail("capget was not refused") }
    }
    do {
        let capability: any CapabilityType =
            switch mode {
            case "capability": try ProcessCapability(arguments[1])
            case "user": try RunsAsUser(arguments[1])
            default: try MemberOfGroup(arguments[1])
            }
        printStatus(await capability.resolveStatus())
    } catch {
        fail("\(error)")
    }
case "path":
    printStatus(await NetworkPath().resolveStatus())
case "watch-path":
    // allowed: a watchdog, not synchronization: a test waiting for a change that never comes fails instead of hanging.
    // It is generous because it counts from the probe's start, and in a full test run the test that makes the
    // change can wait a long time for a thread (30 seconds was seen to expire before the change was even made).
    Task {
        try? await Task.sleep(for: .seconds(300))  // allowed: watchdog
        // Read afresh: authorized here means a change event was missed, denied that the change never happened.
        fail("no satisfied path within 300 seconds; read afresh now: \(await NetworkPath().resolveStatus())")
    }
    for await status in NetworkPath().statusUpdates() {
        printStatus(status)
        if status.kind == .authorized { exit(0) }
    }
case "host":
    guard arguments.count == 4, let port = Int(arguments[2]), let milliseconds = Int(arguments[3]) else {
        fail("usage: capability-probe host HOST PORT TIMEOUT_MS")
    }
    do {
        let capability = try HostReachability(host: arguments[1], port: port, timeout: .milliseconds(milliseconds))
        printStatus(await capability.resolveStatus())
    } catch {
        fail("\(error)")
    }
case "polkit":
    guard arguments.count >= 3, ["status", "authorize", "authorize-cancel"].contains(arguments[2]) else {
        fail("usage: capability-probe polkit ACTION status|authorize|authorize-cancel [no-keep]")
    }
    let authorizing = Lock<Task<CapabilityStatus, any Error>?>(nil)
    let cancelsAtPrompt = arguments[2] == "authorize-cancel"
    let conversation = ProgrammaticPAMConversation(
        secret: {
            guard !cancelsAtPrompt else {
                authorizing.withLock { $0?.cancel() }
                return nil
            }
            return readLine(strippingNewline: true).map(PAMSecret.init)
        },
        onMessage: { message in
            let line = Array("message: \(message.text)\n".utf8)
            _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
        })
    do {
        var details: [String: String] = [:]
        for argument in arguments.dropFirst(3) where argument.hasPrefix("detail:") {
            let pair = argument.dropFirst("detail:".count).split(separator: "=", maxSplits: 1)
            details[String(pair[0])] = pair.count > 1 ? String(pair[1]) : ""
        }
        let timeout = arguments.dropFirst(3).first { $0.hasPrefix("timeout:") }.flatMap { Int($0.dropFirst(8)) }
        let capability = try PolkitAuthorization(
            action: arguments[1], details: details, conversation: conversation,
            keepsTemporaryAuthorization: !arguments.dropFirst(3).contains("no-keep"),
            statusTimeout: .milliseconds(timeout ?? 25_000))
        if arguments[2] != "status" {
            // Stored under the lock the prompt takes, so the prompt always finds the task.
            let task = authorizing.withLock { stored in
                let task = Task { try await capability.authorize() }
                stored = task
                return task
            }
            do {
                printStatus(try await task.value)
            } catch is CancellationError {
                print("cancelled")
            }
        }
        printStatus(await capability.resolveStatus())
    } catch {
        fail("\(error)")
    }
case "connect":
    guard arguments.count == 2 else { fail("usage: capability-probe connect PATH") }
    let socketDescriptor = clinux_unix_socket(arguments[1], Int32(SOCK_STREAM.rawValue), CLINUX_UNIX_CONNECT)
    guard socketDescriptor >= 0 else { fail("cannot connect to \(arguments[1])") }
    print("connected")
    fflush(nil)
    // Running (not a zombie whose /proc entry is half gone) until the service is done with it.
    var byte: UInt8 = 0
    while read(socketDescriptor, &byte, 1) > 0 {}
case "peer":
    // Accepts one connection on a new socket at PATH and prints the peer as Subject.peer sees it
    // (`uid=U pid=P|none`), then CAP_NET_BIND_SERVICE's status for it. With `without-peer-pidfd`,
    // getsockopt(SO_PEERPIDFD) fails first, as on a kernel before 6.5.
    guard arguments.count >= 2 else { fail("usage: capability-probe peer PATH [without-peer-pidfd]") }
    if arguments.count > 2, arguments[2] == "without-peer-pidfd" {
        let refused = clinux_refuse_peer_pidfd()
        guard refused == 0 else { fail("cannot install the seccomp filter: \(String(cString: strerror(refused)))") }
    }
    let listening = clinux_unix_socket(arguments[1], Int32(SOCK_STREAM.rawValue), CLINUX_UNIX_LISTEN)
    guard listening >= 0 else { fail("cannot listen on \(arguments[1])") }
    chmod(arguments[1], 0o777)
    print("listening")
    fflush(nil)
    let connection = accept(listening, nil, nil)
    guard connection >= 0 else { fail("accept failed") }
    do {
        let subject = try Subject.peer(of: connection)
        print("uid=\(subject.uid) pid=\(subject.process.map { String($0.pid) } ?? "none")")
        printStatus(try await ProcessCapability("CAP_NET_BIND_SERVICE").forSubject(subject).resolveStatus())
    } catch {
        fail("\(error)")
    }
case "flood":
    guard arguments.count == 4, let silent = Int(arguments[2]), let idle = Int(arguments[3]), silent > 0 else {
        fail("usage: capability-probe flood PATH SILENT IDLE")
    }
    var usr1 = sigset_t()
    sigemptyset(&usr1)
    sigaddset(&usr1, SIGUSR1)
    pthread_sigmask(SIG_BLOCK, &usr1, nil)
    func connection() -> Int32 {
        let descriptor = clinux_unix_socket(arguments[1], Int32(SOCK_STREAM.rawValue), CLINUX_UNIX_CONNECT)
        guard descriptor >= 0 else { fail("cannot connect to \(arguments[1])") }
        return descriptor
    }
    func send(_ text: String, to descriptor: Int32) {
        _ = Array(text.utf8).withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    }
    func firstLine(of descriptor: Int32) -> String {
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while read(descriptor, &byte, 1) == 1, byte != 10 { line.append(byte) }
        return String(decoding: line, as: UTF8.self)
    }
    /// Nothing to read and not closed: the service holds the connection and has said nothing (more).
    func heldOpen(_ descriptor: Int32) -> Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) == 0
    }
    // The first silent client is asked before the others connect: its conversation is open.
    let first = connection()
    send("restart flood\n", to: first)
    guard firstLine(of: first).hasPrefix("pam-secret: ") else { fail("the first client was not asked") }
    var held = [first]
    let others = (1..<silent).map { _ in
        let descriptor = connection()
        send("restart flood\n", to: descriptor)
        return descriptor
    }
    let idleDescriptors = (0..<idle).map { _ in
        let descriptor = connection()
        send("restart", to: descriptor)
        return descriptor
    }
    // The service accepts in order: once this one is answered, every one before it was accepted.
    let marker = connection()
    send("restart marker\n", to: marker)
    _ = firstLine(of: marker)
    var busy = 0
    for descriptor in others + idleDescriptors {
        if heldOpen(descriptor) {
            held.append(descriptor)
            continue
        }
        let line = firstLine(of: descriptor)
        if line.hasPrefix("error: busy: ") {
            busy += 1
        } else if line.hasPrefix("pam-secret: ") {
            held.append(descriptor)  // its turn came (an earlier one of the same session gave up)
        } else {
            fail("unexpected line: \(line)")
        }
    }
    print("held=\(held.count) busy=\(busy)")
    print("ready")
    fflush(nil)
    var signal: Int32 = 0
    sigwait(&usr1, &signal)
    // A question already read is not "something said": only a reply or a close counts.
    print("open \(held.filter(heldOpen).count)")
    fflush(nil)
case "polkit-impostor":
    #if !DEBUG
        fail("polkit-impostor needs a debug build")
    #else
        guard let library = SystemdBusLibrary.loaded(SystemdBusLibrary.defaultPath) else { fail("no sd-bus") }
        do throws(DBusError) {
            let connection = try DBusConnection(systemBusWith: library)
            try connection.exportObject(path: PolkitAuthority.path) { [unowned connection] call in
                guard call.member == "CheckAuthorization" else { return false }
                try? connection.reply(
                    to: call, [.structure([.boolean(false), .boolean(false), .stringDictionary([:])])])
                return true
            }
            let request = try connection.methodCall(
                destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                member: "RequestName", [.string(PolkitAuthority.service), .uint32(4)])
            let reply = try connection.call(request, timeout: .seconds(10))
            guard reply.first?.unsignedValue == 1 else { fail("did not become the owner: \(reply)") }
            print("owner")
            fflush(nil)
            try connection.run(until: { false })
        } catch {
            fail("\(error)")
        }
    #endif
default:
    fail("unknown mode \(mode)")
}
