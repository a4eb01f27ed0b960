import DecisionService
import Foundation
import Glibc
import TestSupport
import Testing
import Varlink

/// capctld as an administrator runs it: the built daemon as root on a real Unix socket, and a
/// client nobody here wrote (Python's `varlink` from PyPI, pinned in Client/requirements.txt) as
/// root and as uid 65534 (setpriv). Every decision is the socket peer's.
@Suite(
    "capctld", .serialized, .enabled(if: geteuid() == 0, "needs root to run clients as uid 65534"),
    .timeLimit(.minutes(2)))
struct CapctldTests {
    /// The capabilities the capctld tests' policies share: a group, a user, and a PAM login of
    /// alice's against the test's own PAM stack (`PAM` stands for its directory).
    static let capabilities = """
        capabilities:
          operators: { kind: group, group: "4242" }
          is-root: { kind: user, user: root }
          admin: { kind: pam, service: capctld-test, user: alice, service-directory: PAM }

        """

    static let policy =
        capabilities + """
            gates:
              restart-unit:
                require: { any-of: [operators, is-root] }
                description: Restart a unit of the system.
              root-only: { require: is-root }
              admin-login: { require: admin }
            """

    /// A running capctld on a policy tree of its own.
    final class Daemon {
        let directory: TemporaryDirectory
        let socket: String
        let process: DaemonProcess
        let policyFile: String
        /// What capctld said before it listened (its policy, its audit sink).
        private(set) var startLines: [String] = []

        /// Lines of output up to and including the first that contains `text` (all that came, if none did).
        func lines(through text: String) async -> [String] {
            var read: [String] = []
            while let line = await process.nextLine() {
                read.append(line)
                if line.contains(text) { break }
            }
            return read
        }

        init(
            policy: String = CapctldTests.policy, arguments: [String] = [], audit: SyslogReceiver? = nil,
            launcher: [String] = [], wrapper: [String] = [], environment: [String: String] = [:],
            journal: (JournalReceiver, ControlGroup)? = nil
        ) async throws {
            directory = try TemporaryDirectory(prefix: "capctld")
            chmod(directory.path, 0o755)
            let pam = PAMTestModules.matrix ?? "pam_matrix.so"
            let passwords = try directory.write("alice:secret:capctld-test\n", to: "pam/passdb")
            try directory.write(
                "auth required \(pam) passdb=\(passwords)\naccount required \(pam) passdb=\(passwords)\n",
                to: "pam/capctld-test")
            policyFile = try directory.write(
                policy.replacingOccurrences(of: "PAM", with: directory.path + "/pam"), to: "etc/policy.yaml")
            socket = directory.path + "/capctld.sock"
            let receiver = audit?.socketPath ?? directory.path + "/audit.sock"
            // Records go to a test's receiver, or to the journal of the test's namespace as the system's.
            let daemon =
                [builtProduct("capctld"), "--policy-roots", directory.path + "/etc", "--idle-timeout", "120"]
                + (journal == nil ? ["--audit-socket", receiver] : [])
            // Either capctld listens itself, or a launcher (systemd-socket-activate) listens and starts it.
            let command =
                launcher.isEmpty
                ? wrapper + daemon + ["--listen", socket] + arguments : launcher + [socket] + daemon + arguments
            process = try DaemonProcess(
                journal.map { journal, group in journal.inside(group.inside(command)) } ?? command,
                environment: ["PATH": "/usr/bin:/bin", "CAPCTL_KEEP_DIRECTORY": directory.path + "/keep"]
                    .merging(Self.sanitizerOptions) { _, given in given }
                    .merging(environment) { _, given in given })
            var first = await process.nextLine()
            if launcher.isEmpty {
                // What it says of its policy and its audit sink comes first, then that it listens.
                var said: [String] = []
                while let line = first, line != "capctld: listening on \(socket)", said.count < 20 {
                    said.append(line)
                    first = await process.nextLine()
                }
                startLines = said
                #expect(first == "capctld: listening on \(socket)", "\(said + [first ?? "nothing"])")
            } else {
                startLines = []
                #expect(first?.contains("Listening on") == true, "\(first ?? "nothing")")
            }
        }

        deinit { process.stop() }

        /// The sanitizer's options of this test run (Scripts/sanitize), for a capctld built with
        /// the same sanitizer: without them, its leak check at exit (which reads Swift's tagged
        /// pointers as leaks) turns a clean exit into status 1.
        static var sanitizerOptions: [String: String] {
            ProcessInfo.processInfo.environment.filter {
                ["ASAN_OPTIONS", "TSAN_OPTIONS", "LSAN_OPTIONS"].contains($0.key)
            }
        }

        /// Replaces the policy file with `policy` (its `PAM` standing for the test's PAM stack):
        /// capctld reloads it.
        func rewritePolicy(_ policy: String) throws {
            try policy.replacingOccurrences(of: "PAM", with: directory.path + "/pam")
                .write(toFile: policyFile, atomically: true, encoding: .utf8)
        }
    }

    /// The pinned client's interpreter (``VarlinkPython``).
    static var python: String? { VarlinkPython.interpreter }

    /// The client script, where any user can read it.
    static let script: String = {
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Client/capctld_client.py").path
        let copy = TestRunDirectory.path + "/capctld_client-\(UUID().uuidString).py"
        try? FileManager.default.copyItem(atPath: source, toPath: copy)
        chmod(copy, 0o644)
        return copy
    }()

    /// Runs the client with `arguments` as `uid` (nil: root), each printed line a JSON object.
    static func client(
        _ socket: String, _ arguments: [String], uid: UInt32? = nil, groups: String = "--clear-groups",
        input: String = ""
    ) throws -> [[String: Any]] {
        guard let python else {
            Issue.record("no varlink client: run Scripts/test, which makes .build/capctld-client-venv")
            return []
        }
        var command = [python, script, socket] + arguments
        if let uid { command = ["/usr/bin/setpriv", "--reuid=\(uid)", "--regid=\(uid)", groups] + command }
        let run = try runProcess(command[0], Array(command.dropFirst()), input: input)
        #expect(run.status == 0, "\(run.standardError)")
        return run.standardOutput.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        }
    }

    static func decision(_ reply: [String: Any]?) -> [String: Any] {
        reply?["decision"] as? [String: Any] ?? [:]
    }

    @Test("the Python client reads the service's description and the interface definition, which it parses")
    func introspection() async throws {
        let daemon = try await Daemon()
        let replies = try Self.client(daemon.socket, ["info"])
        #expect(replies.first?["product"] as? String == "capctld")
        #expect(
            replies.first?["interfaces"] as? [String] == [
                "org.varlink.service", "io.systemd.service", "org.capctl.gates",
            ])
        #expect((replies.last?["description"] as? String)?.hasPrefix("# Gates of the system") == true)
    }

    @Test(
        "Check decides for the socket's peer: root and a group member pass, uid 65534 does not, and learns only the outcome"
    )
    func checkForPeer() async throws {
        let daemon = try await Daemon()
        let asRoot = Self.decision(try Self.client(daemon.socket, ["check", "restart-unit"]).first)
        #expect(asRoot["outcome"] as? String == "holds", "\(asRoot)")
        let tree = asRoot["explanation"] as? [String: Any] ?? [:]
        #expect(tree["outcome"] as? String == "passed", "root sees the explanation: \(asRoot)")
        #expect("\(tree)".contains("is-root"), "root sees every part: \(tree)")
        let nobody = Self.decision(try Self.client(daemon.socket, ["check", "restart-unit"], uid: 65534).first)
        #expect(nobody["outcome"] as? String == "fails", "\(nobody)")
        #expect(nobody["description"] as? String == "Restart a unit of the system.")
        #expect(nobody["explanation"] == nil, "an unprivileged client is not told the policy's parts: \(nobody)")
        let member = Self.decision(
            try Self.client(daemon.socket, ["check", "restart-unit"], uid: 65534, groups: "--groups=4242").first)
        #expect(member["outcome"] as? String == "holds", "\(member)")
        let unknown = try Self.client(daemon.socket, ["check", "no-such-gate"], uid: 65534).first
        #expect(unknown?["error"] as? String == "org.capctl.gates.NoSuchGate", "\(unknown ?? [:])")
    }

    @Test(
        "Status decides every gate for the caller; a PAM gate that could open by asking says needsInteraction and authorize"
    )
    func status() async throws {
        let daemon = try await Daemon()
        let reply = try Self.client(daemon.socket, ["status"], uid: 65534).first
        let decisions = reply?["decisions"] as? [[String: Any]] ?? []
        #expect(
            decisions.map { $0["gate"] as? String } == ["admin-login", "restart-unit", "root-only"], "\(decisions)")
        let admin = decisions.first { $0["gate"] as? String == "admin-login" } ?? [:]
        #expect(admin["outcome"] as? String == "needsInteraction", "\(admin)")
        #expect(admin["actions"] as? [String] == ["authorize"], "\(admin)")
    }

    @Test("CheckForSubject is root's alone, and a process is named by pid, start time and uid, each checked")
    func checkForSubject() async throws {
        let daemon = try await Daemon()
        let refused = try Self.client(
            daemon.socket, ["check-subject", "root-only", "user=root"], uid: 65534
        ).first
        #expect(refused?["error"] as? String == "org.varlink.service.PermissionDenied", "\(refused ?? [:])")
        let forUser = Self.decision(
            try Self.client(daemon.socket, ["check-subject", "root-only", "user=nobody"]).first)
        #expect(forUser["outcome"] as? String == "fails", "\(forUser)")
        // This test process: root, with its real start time; then the same pid with another start time.
        let stat = try String(contentsOfFile: "/proc/self/stat", encoding: .utf8)
        let fields = stat[stat.range(of: ")")!.upperBound...].split(separator: " ")
        let startTime = String(fields[19])
        let pid = String(getpid())
        let this = Self.decision(
            try Self.client(
                daemon.socket, ["check-subject", "root-only", "pid=\(pid)", "startTime=\(startTime)", "uid=0"]
            ).first)
        #expect(this["outcome"] as? String == "holds", "\(this)")
        let reused = try Self.client(
            daemon.socket, ["check-subject", "root-only", "pid=\(pid)", "startTime=\(Int(startTime)! + 1)", "uid=0"]
        ).first
        #expect(reused?["error"] as? String == "org.capctl.gates.SubjectMismatch", "\(reused ?? [:])")
        let otherUser = try Self.client(
            daemon.socket, ["check-subject", "root-only", "pid=\(pid)", "startTime=\(startTime)", "uid=65534"]
        ).first
        #expect(otherUser?["error"] as? String == "org.capctl.gates.SubjectMismatch", "\(otherUser ?? [:])")
    }

    @Test("Authorize relays PAM's question to the client: the right password opens the gate, a wrong one does not")
    func authorize() async throws {
        let daemon = try await Daemon()
        let accepted = try Self.client(daemon.socket, ["authorize", "admin-login"], uid: 65534, input: "secret\n")
        let question = accepted.first?["question"] as? [String: Any]
        // pam_matrix's "Password: ", said as sudo says it: whose password, and for what.
        #expect(
            question?["kind"] as? String == "secret"
                && question?["text"] as? String == "[capctl] password for alice to admin-login: ", "\(accepted)")
        #expect(Self.decision(accepted.last)["outcome"] as? String == "holds", "\(accepted)")
        let refused = try Self.client(daemon.socket, ["authorize", "admin-login"], uid: 65534, input: "wrong\n")
        #expect(Self.decision(refused.last)["outcome"] as? String == "fails", "\(refused)")
        let declined = try Self.client(daemon.socket, ["authorize", "admin-login"], uid: 65534, input: "")
        #expect(Self.decision(declined.last)["outcome"] as? String == "dismissed", "\(declined)")
        let closed = try Self.client(daemon.socket, ["authorize", "admin-login", "close"], uid: 65534, input: "")
        #expect(closed.last?["closed"] as? Bool == true, "\(closed)")
    }

    @Test("Watch replies now and again when the policy changes")
    func watch() async throws {
        let daemon = try await Daemon()
        let watcher = try Self.running(daemon, ["watch", "root-only", "2"])
        defer { watcher.stop() }
        let first = await watcher.nextLine() ?? ""
        #expect(first.contains(#""outcome": "fails""#), "\(first)")
        // Read: the watch is on. Now the policy changes, and the decision with it.
        try daemon.rewritePolicy(
            Self.policy.replacingOccurrences(
                of: "root-only: { require: is-root }", with: "root-only: { require: { not: is-root } }"))
        let second = await watcher.nextLine() ?? ""
        #expect(second.contains(#""outcome": "holds""#), "\(second)")
    }

    @Test("broken messages close the connection, parameters the method does not define are refused")
    func badInput() async throws {
        let daemon = try await Daemon()
        let notJSON = try Self.client(daemon.socket, ["raw"], uid: 65534, input: "{nope\0")
        #expect(notJSON.count == 1 && notJSON[0]["closed"] as? Bool == true, "\(notJSON)")
        let extra = try Self.client(
            daemon.socket, ["raw"], uid: 65534,
            input: #"{"method":"org.capctl.gates.Check","parameters":{"gate":"root-only","uid":0}}"# + "\0")
        #expect(extra.first?["error"] as? String == "org.varlink.service.InvalidParameter", "\(extra)")
        let unknown = try Self.client(
            daemon.socket, ["raw"], uid: 65534, input: #"{"method":"org.capctl.gates.Become","parameters":{}}"# + "\0")
        #expect(unknown.first?["error"] as? String == "org.varlink.service.MethodNotFound", "\(unknown)")
        let huge = try Self.client(
            daemon.socket, ["raw"], uid: 65534, input: String(repeating: " ", count: 70_000) + "{}\0")
        #expect(huge.count == 1 && huge[0]["closed"] as? Bool == true, "\(huge)")
        // Pipelined calls are answered in order, each on its own.
        let pipelined = try Self.client(
            daemon.socket, ["raw"], uid: 65534,
            input: #"{"method":"org.capctl.gates.Check","parameters":{"gate":"root-only"}}"# + "\0"
                + #"{"method":"org.varlink.service.GetInfo"}"# + "\0")
        #expect(pipelined.count == 3, "\(pipelined)")
        #expect(
            Self.decision(pipelined.first.map { $0["parameters"] as? [String: Any] ?? [:] })["outcome"] as? String
                == "fails")
    }

    /// A named pipe in `directory` a client waits on until the test writes it.
    static func fifo(_ directory: TemporaryDirectory, _ name: String) -> String {
        let path = directory.path + "/" + name
        mkfifo(path, 0o666)
        chmod(path, 0o666)
        return path
    }

    /// Writes `text` to the named pipe at `path` and closes it; a pipe nobody reads any more (the
    /// client failed) is left alone rather than waited on.
    static func write(_ text: String, toFIFO path: String) {
        let descriptor = open(path, O_WRONLY | O_NONBLOCK)
        guard descriptor >= 0 else {
            Issue.record("cannot open \(path)")
            return
        }
        _ = text.withCString { Glibc.write(descriptor, $0, strlen($0)) }
        close(descriptor)
    }

    @Test(
        "100 connections from one user: 64 are served and the rest refused at once with Busy; other users are served meanwhile"
    )
    func flood() async throws {
        let daemon = try await Daemon()
        let release = Self.fifo(daemon.directory, "release")
        let holder = try Self.running(daemon, ["hold", "100", release])
        defer { holder.stop() }
        var counts = await holder.nextLine() ?? ""
        if counts.hasPrefix("Traceback") {
            for _ in 0..<12 { counts += "\n" + (await holder.nextLine() ?? "") }
        }
        #expect(counts == #"{"held": 64, "refused": 36}"#, "\(counts)")
        // While uid 65534 holds all it may, uid 4321 and root are decided for at once.
        let other = Self.decision(try Self.client(daemon.socket, ["check", "restart-unit"], uid: 4321).first)
        #expect(other["outcome"] as? String == "fails", "\(other)")
        let root = Self.decision(try Self.client(daemon.socket, ["check", "restart-unit"]).first)
        #expect(root["outcome"] as? String == "holds", "\(root)")
        // And a 65th connection of uid 65534 is still refused: nothing waited the held ones out.
        let more = try Self.client(
            daemon.socket, ["raw"], uid: 65534,
            input: #"{"method":"org.capctl.gates.Check","parameters":{"gate":"restart-unit"}}"# + "\0"
        ).first
        #expect(more?["error"] as? String == "org.capctl.gates.Busy", "\(more ?? [:])")
        Self.write("", toFIFO: release)
    }

    @Test(
        "a user that sends 1,500 calls on each of 64 connections and reads no reply: others are answered meanwhile, and once it reads, every reply comes, in order"
    )
    func callsNobodyReads() async throws {
        let daemon = try await Daemon()
        let release = Self.fifo(daemon.directory, "release")
        let flooding = try Self.running(daemon, ["pipeline", "64", "1500", "restart-unit", release])
        defer { flooding.stop() }
        let sent = await flooding.nextLine() ?? ""
        #expect(sent == #"{"sent": 64}"#, "\(sent)")
        // Its replies fill its sockets; capctld keeps the rest and goes on serving everyone else.
        for _ in 0..<5 {
            let root = Self.decision(try Self.client(daemon.socket, ["check", "restart-unit"]).first)
            #expect(root["outcome"] as? String == "holds", "\(root)")
            let other = Self.decision(try Self.client(daemon.socket, ["check", "restart-unit"], uid: 4321).first)
            #expect(other["outcome"] as? String == "fails", "\(other)")
        }
        Self.write("", toFIFO: release)
        let read = await flooding.nextLine() ?? ""
        #expect(
            read == #"{"ordered": true, "replies": [\#(Array(repeating: "1500", count: 64).joined(separator: ", "))]}"#,
            "\(read)")
    }

    @Test(
        "a client silent past --idle-timeout, or stopped half-way through a call, is closed; a client asking meanwhile is answered"
    )
    func idleClientsClosed() async throws {
        let daemon = try await Daemon(arguments: ["--idle-timeout", "1"])
        func connect() -> Int32 {
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(daemon.socket.utf8) + [0]) }
            let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            #expect(connected == 0)
            return descriptor
        }
        /// What the connection reads within 20 s: its bytes, or nil at its end.
        func readOrEnd(_ descriptor: Int32) -> [UInt8]? {
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, 20_000) == 1 else { return [] }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = Glibc.read(descriptor, &buffer, buffer.count)
            return count > 0 ? Array(buffer[..<count]) : nil
        }
        let silent = connect()
        let half = connect()
        defer {
            close(silent)
            close(half)
        }
        _ = #"{"method":"org.capctl.gates.Check","para"#.withCString { Glibc.write(half, $0, strlen($0)) }
        // Meanwhile another client is answered at once.
        let root = Self.decision(try Self.client(daemon.socket, ["check", "restart-unit"]).first)
        #expect(root["outcome"] as? String == "holds", "\(root)")
        #expect(readOrEnd(silent) == nil, "a silent client is closed, with no reply")
        #expect(readOrEnd(half) == nil, "half a call gets no reply, and the connection is closed")
    }

    @Test(
        "a client that closes right after its call is decided as who it was, never another identity (CVE-2021-3560)",
        .enabled(if: SyslogReceiver.isAvailable, "needs rsyslogd"))
    func disconnectDuringDecision() async throws {
        let audit = try SyslogReceiver()
        let daemon = try await Daemon(audit: audit)
        let replies = try Self.client(
            daemon.socket, ["raw"], uid: 65534,
            input: #"{"method":"org.capctl.gates.Check","parameters":{"gate":"root-only"},"oneway":true}"# + "\0")
        #expect(replies.count == 1 && replies[0]["closed"] as? Bool == true, "a oneway call gets no reply: \(replies)")
        let record = await audit.nextRecord() ?? ""
        #expect(record.contains(#"CAPCTL_GATE="root-only""#), "\(record)")
        #expect(record.contains(#"CAPCTL_UID="65534""#), "\(record)")
        #expect(record.contains(#"CAPCTL_OUTCOME="fails""#), "\(record)")
    }

    @Test(
        "a call's traceparent joins the caller's trace: the record carries its trace id; a malformed one is refused",
        .enabled(if: SyslogReceiver.isAvailable, "needs rsyslogd"))
    func traceParent() async throws {
        let audit = try SyslogReceiver()
        let daemon = try await Daemon(audit: audit)
        let traced = try Self.client(
            daemon.socket, ["raw"], uid: 65534,
            input: #"{"method":"org.capctl.gates.Check","parameters":{"gate":"root-only","#
                + #""traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}}"# + "\0")
        let parameters = traced.first?["parameters"] as? [String: Any]
        #expect(Self.decision(parameters)["outcome"] as? String == "fails", "\(traced)")
        let record = await audit.nextRecord() ?? ""
        #expect(record.contains(#"CAPCTL_TRACE_ID="4bf92f3577b34da6a3ce929d0e0e4736""#), "\(record)")
        for malformed in [
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "4bf92f3577b34da6a3ce929d0e0e4736",
        ] {
            let refused = try Self.client(
                daemon.socket, ["raw"], uid: 65534,
                input: #"{"method":"org.capctl.gates.Check","parameters":{"gate":"root-only","traceparent":""#
                    + malformed + #""}}"# + "\0"
            ).first
            #expect(
                refused?["error"] as? String == "org.varlink.service.InvalidParameter",
                "\(malformed): \(refused ?? [:])")
        }
    }

    @Test(
        "SIGTERM with a client silent at its PAM question: cut off after the drain timeout, and the unit's stop timeout outlasts the default drain"
    )
    func sigtermBoundedDrain() async throws {
        // Before, capctld waited 130 s for such a client, past systemd's default stop timeout (90 s).
        let unit = try String(
            contentsOfFile: URL(fileURLWithPath: #filePath).deletingLastPathComponent().path
                + "/../../Packaging/systemd/capctld.service", encoding: .utf8)
        let stopLine = unit.split(separator: "\n").first { $0.hasPrefix("TimeoutStopSec=") }
        let stopSeconds = stopLine.flatMap { Int($0.dropFirst("TimeoutStopSec=".count).dropLast()) }
        #expect(stopLine?.hasSuffix("s") == true, "\(String(describing: stopLine))")
        #expect(
            stopSeconds.map { Duration.seconds($0) > DecisionService.defaultDrainTimeout + .seconds(5) } == true,
            "TimeoutStopSec=\(String(describing: stopSeconds)) leaves the drain and the last records room")
        #expect(DecisionService.defaultDrainTimeout < .seconds(90), "below systemd's default stop timeout")
        let daemon = try await Daemon(arguments: ["--drain-timeout", "1"])
        let answers = Self.fifo(daemon.directory, "answers")
        let silent = try Self.running(daemon, ["authorize", "admin-login", answers])
        defer { silent.stop() }
        #expect(await silent.nextLine()?.contains(#""kind": "secret""#) == true)
        kill(daemon.process.pid, SIGTERM)
        #expect(await daemon.process.waitForOutput(containing: "capctld: 2 client(s) still served at exit"))
        #expect(await daemon.process.waitForOutput(containing: "capctld: stopped"))
        #expect(daemon.process.waitUntilExit() == 0)
    }

    @Test("SIGTERM stops accepting, lets a client in its PAM conversation finish, then capctld exits 0")
    func sigtermDrains() async throws {
        let daemon = try await Daemon()
        let python = try #require(Self.python, "no varlink client: run Scripts/test")
        let answers = Self.fifo(daemon.directory, "answers")
        let authorizing = try Self.running(daemon, ["authorize", "admin-login", answers])
        defer { authorizing.stop() }
        #expect(await authorizing.nextLine()?.contains(#""kind": "secret""#) == true)
        kill(daemon.process.pid, SIGTERM)
        // Two connections: the one asking, and the one its answer comes on.
        #expect(await daemon.process.waitForOutput(containing: "capctld: stopping, 2 client(s) being served"))
        // No new client is accepted.
        let refused = try runProcess(python, [Self.script, daemon.socket, "check", "root-only"])
        #expect(refused.status != 0, "\(refused.standardOutput)")
        // The one in its conversation answers, and is answered.
        Self.write("secret\n", toFIFO: answers)
        #expect(await authorizing.nextLine()?.contains(#""outcome": "holds""#) == true)
        #expect(await daemon.process.waitForOutput(containing: "capctld: stopped"))
        #expect(daemon.process.waitUntilExit() == 0)
    }

    @Test(
        "socket activation: systemd-socket-activate listens, capctld takes the socket it is handed, and leaves its file alone"
    )
    func socketActivation() async throws {
        let launcher = "/usr/bin/systemd-socket-activate"
        try #require(FileManager.default.isExecutableFile(atPath: launcher), "needs systemd (systemd-socket-activate)")
        // The launcher hands capctld only the variables it is told (-E): the sanitizer's, if any.
        let passed = Daemon.sanitizerOptions.keys.sorted().map { "--setenv=\($0)" }
        let daemon = try await Daemon(launcher: [launcher] + passed + ["-l"])
        // As root: the launcher's socket file has the umask's mode (the unit's SocketMode=0666 is systemd's).
        let decision = Self.decision(try Self.client(daemon.socket, ["check", "root-only"]).first)
        #expect(decision["outcome"] as? String == "holds", "\(decision)")
        #expect(await daemon.process.waitForOutput(containing: "capctld: listening on \(daemon.socket)"))
        kill(daemon.process.pid, SIGTERM)
        #expect(await daemon.process.waitForOutput(containing: "capctld: stopped"))
        #expect(daemon.process.waitUntilExit() == 0)
        #expect(FileManager.default.fileExists(atPath: daemon.socket), "the launcher's socket file is left to it")
    }

    @Test("no descriptor or thread is left behind by clients that came and went")
    func nothingLeaks() async throws {
        let daemon = try await Daemon()
        _ = try Self.client(daemon.socket, ["check", "root-only"], uid: 65534)
        let baseline = Self.descriptors(of: daemon.process.pid)
        for _ in 0..<10 {
            _ = try Self.client(daemon.socket, ["check", "root-only"], uid: 65534)
            _ = try Self.client(daemon.socket, ["raw"], uid: 65534, input: "{broken\0")
        }
        // Each connection is closed once its thread sees the client go: polled, as nothing signals it.
        let deadline = ContinuousClock.now + .seconds(30)
        while Self.descriptors(of: daemon.process.pid) > baseline, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))  // allowed: polling another process's state
        }
        #expect(Self.descriptors(of: daemon.process.pid) == baseline)
    }

    static func descriptors(of pid: Int32) -> Int {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []).count
    }

    @Test("the package's own client: a call's reply, an error reply as an error, and a watch's replies")
    func swiftClient() async throws {
        let daemon = try await Daemon()
        let client = try VarlinkClient(path: daemon.socket)
        let reply = try client.call("org.capctl.gates.Check", [("gate", .string("root-only"))])
        #expect(reply["decision"]?["outcome"] == .string("holds"), "\(reply.json)")
        #expect(throws: VarlinkClient.Failure.self) {
            try client.call("org.capctl.gates.Check", [("gate", .string("nowhere"))])
        }
        do {
            _ = try client.call("org.capctl.gates.Check", [("gate", .string("nowhere"))])
        } catch {
            if case .error(let error) = error {
                #expect(error.name == "org.capctl.gates.NoSuchGate")
            } else {
                Issue.record("not an error reply: \(error)")
            }
        }
        var outcomes: [VarlinkValue] = []
        try VarlinkClient(path: daemon.socket).callMore("org.capctl.gates.Watch", [("gate", .string("root-only"))]) {
            outcomes.append($0["decision"]?["outcome"] ?? .null)
            return false
        }
        #expect(outcomes == [.string("holds")])
    }

    @Test("Metrics: root reads the decisions counted by method and outcome, and their durations; others may not")
    func metrics() async throws {
        let daemon = try await Daemon()
        _ = try Self.client(daemon.socket, ["check", "root-only"])
        _ = try Self.client(daemon.socket, ["check", "root-only"], uid: 65534)
        _ = try Self.client(daemon.socket, ["status"], uid: 65534)
        let text = try Self.client(daemon.socket, ["metrics"]).first?["text"] as? String ?? ""
        #expect(text.contains(#"capctld_decisions_total{method="check",outcome="holds"} 1"#), "\(text)")
        #expect(text.contains(#"capctld_decisions_total{method="check",outcome="fails"} 1"#), "\(text)")
        // Status decides each of the three gates.
        #expect(text.contains(#"capctld_decisions_total{method="status",outcome="#), "\(text)")
        #expect(text.contains("capctld_decision_duration_seconds"), "\(text)")
        let refused = try Self.client(daemon.socket, ["metrics"], uid: 65534).first
        #expect(refused?["error"] as? String == "org.varlink.service.PermissionDenied", "\(refused ?? [:])")
    }

    @Test("systemd hears READY, the watchdog's pings while it runs, and STOPPING at SIGTERM; capctld exits 0")
    func notifications() async throws {
        let directory = try TemporaryDirectory(prefix: "capctld-notify")
        let notify = try NotifySocket(path: directory.path + "/notify.sock")
        let daemon = try await Daemon(environment: ["NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "100000"])
        try notify.waitForReady("capctld")
        try notify.waitFor("WATCHDOG=1", from: "capctld")
        try notify.waitFor("WATCHDOG=1", from: "capctld")
        kill(daemon.process.pid, SIGTERM)
        try notify.waitFor("STOPPING=1", from: "capctld")
        #expect(daemon.process.waitUntilExit() == 0)
    }

    /// Messages sent as they are through the Python client's `raw` command, as `uid`: each reply.
    static func raw(_ daemon: Daemon, _ messages: [String], uid: UInt32? = nil) throws -> [[String: Any]] {
        try client(daemon.socket, ["raw"], uid: uid, input: messages.map { $0 + "\u{0}" }.joined())
            .filter { $0["closed"] == nil }
    }

    @Test(
        "io.systemd.service: Ping for anyone; Reload and SetLogLevel for root only; Reload and SIGHUP tell systemd RELOADING, then READY"
    )
    func systemdServiceInterface() async throws {
        let directory = try TemporaryDirectory(prefix: "capctld-notify")
        let notify = try NotifySocket(path: directory.path + "/notify.sock")
        let daemon = try await Daemon(environment: ["NOTIFY_SOCKET": notify.path])
        try notify.waitForReady("capctld")
        let info = try Self.client(daemon.socket, ["info"]).first
        #expect((info?["interfaces"] as? [String])?.contains("io.systemd.service") == true, "\(info ?? [:])")
        let ping = #"{"method": "io.systemd.service.Ping"}"#
        let reload = #"{"method": "io.systemd.service.Reload"}"#
        let nobody = try Self.raw(
            daemon, [ping, reload, #"{"method": "io.systemd.service.SetLogLevel", "parameters": {"level": 7}}"#],
            uid: 65534)
        #expect(nobody.count == 3 && nobody[0]["error"] == nil, "\(nobody)")
        #expect(
            nobody.dropFirst().allSatisfy { $0["error"] as? String == "org.varlink.service.PermissionDenied" },
            "\(nobody)")
        let invalid = try Self.raw(
            daemon, [#"{"method": "io.systemd.service.SetLogLevel", "parameters": {"level": 9}}"#, ping + "x"])
        #expect(invalid.first?["error"] as? String == "org.varlink.service.InvalidParameter", "\(invalid)")
        // Debug lines only once root asked for them.
        let root = try Self.raw(
            daemon, [#"{"method": "io.systemd.service.SetLogLevel", "parameters": {"level": 7}}"#, reload])
        #expect(root.count == 2 && root.allSatisfy { $0["error"] == nil }, "\(root)")
        try notify.waitFor("RELOADING=1", from: "capctld")
        try notify.waitFor("READY=1", from: "capctld")
        #expect(await daemon.process.waitForOutput(containing: "capctld: policy read again"))
        kill(daemon.process.pid, SIGHUP)
        try notify.waitFor("RELOADING=1", from: "capctld")
        try notify.waitFor("READY=1", from: "capctld")
        #expect(await daemon.process.waitForOutput(containing: "capctld: policy read again"))
    }

    /// A flagd document with the Boolean flag `key`, on or off.
    static func flagFile(_ key: String, on: Bool) -> String {
        """
        {"flags": {"\(key)": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "\(on ? "on" : "off")"}}}
        """
    }

    /// A watcher of `gate` for its first `count` replies, as uid 65534.
    static func watcher(_ daemon: Daemon, _ gate: String, count: Int) throws -> DaemonProcess {
        try running(daemon, ["watch", gate, String(count)])
    }

    /// The client with `arguments` as uid 65534, left running: for calls that go on (a watch, a
    /// login being asked, connections held), read line by line.
    /// The Python client running as nobody, in a session of its own with a shell of its own as
    /// its parent: a login it is asked is scoped to it alone (Semantics 53), so several run at once.
    static func running(_ daemon: Daemon, _ arguments: [String]) throws -> DaemonProcess {
        let python = try #require(Self.python, "no varlink client: run Scripts/test")
        return try DaemonProcess(
            [
                "/usr/bin/setsid", "/bin/sh", "-c", #""$@"; exit $?"#, "sh", "/usr/bin/setpriv", "--reuid=65534",
                "--regid=65534", "--clear-groups", python, Self.script, daemon.socket,
            ]
                + arguments, environment: ["PATH": "/usr/bin:/bin"])
    }

    @Test("Watch follows the flags of the policy in force after a reload, not those of the one it began with")
    func watchFollowsNextPolicysFlags() async throws {
        let directory = try TemporaryDirectory(prefix: "capctld-flags")
        chmod(directory.path, 0o755)
        let first = try directory.write(Self.flagFile("f", on: false), to: "first.json")
        let second = try directory.write(Self.flagFile("f", on: false), to: "second.json")
        func policy(flags: String, description: String) -> String {
            "flags: { files: [\(flags)] }\ngates:\n  flagged: { require: { flag: f }, description: \(description) }\n"
        }
        let daemon = try await Daemon(policy: policy(flags: first, description: "First"))
        let watcher = try Self.watcher(daemon, "flagged", count: 3)
        defer { watcher.stop() }
        let initial = await watcher.nextLine() ?? ""
        #expect(initial.contains(#""outcome": "fails""#) && initial.contains("First"), "\(initial)")
        // A new policy, reading another flag file: seen as the new description.
        try policy(flags: second, description: "Second").write(
            toFile: daemon.policyFile, atomically: true, encoding: .utf8)
        let reloaded = await watcher.nextLine() ?? ""
        #expect(reloaded.contains("Second") && reloaded.contains(#""outcome": "fails""#), "\(reloaded)")
        // The new policy's flag file changes: the watch hears it (it followed the first file before).
        try Self.flagFile("f", on: true).write(toFile: second, atomically: true, encoding: .utf8)
        let flagged = await watcher.nextLine() ?? ""
        #expect(flagged.contains(#""outcome": "holds""#), "\(flagged)")
    }

    @Test("Watch follows a capability's status for the client: a file made readable opens the gate")
    func watchFollowsCapabilities() async throws {
        let directory = try TemporaryDirectory(prefix: "capctld-file")
        chmod(directory.path, 0o755)
        let marker = directory.path + "/ready"
        let daemon = try await Daemon(
            policy: """
                capabilities:
                  marker: { kind: file, path: \(marker), access: [read] }
                gates:
                  ready: { require: marker }
                """)
        let watcher = try Self.watcher(daemon, "ready", count: 2)
        defer { watcher.stop() }
        let initial = await watcher.nextLine() ?? ""
        #expect(!initial.contains(#""outcome": "holds""#), "\(initial)")
        _ = try directory.write("", to: "ready", mode: 0o644)
        // Noticed when the capability reports its status again (it polls, every few seconds).
        let opened = await watcher.nextLine() ?? ""
        #expect(opened.contains(#""outcome": "holds""#), "\(opened)")
    }

    @Test(
        "without SO_PEERPIDFD (a kernel before 6.5, made so with seccomp), a client has no process: gates on its process are undecided, its user still counts"
    )
    func withoutPeerPidfd() async throws {
        let policy = """
            capabilities:
              is-root: { kind: user, user: root }
              net-bind: { kind: process-capability, capability: CAP_NET_BIND_SERVICE }
            gates:
              root-only: { require: is-root }
              bind: { require: net-bind }
            """
        let pinned = try await Daemon(policy: policy)
        #expect(
            Self.decision(try Self.client(pinned.socket, ["check", "bind"]).first)["outcome"] as? String == "holds")
        let older = try await Daemon(
            policy: policy, wrapper: [builtProduct("capability-probe"), "exec-without-peer-pidfd"])
        let bind = Self.decision(try Self.client(older.socket, ["check", "bind"]).first)
        #expect(bind["outcome"] as? String == "undecided", "no pid is trusted without the pin: \(bind)")
        let root = Self.decision(try Self.client(older.socket, ["check", "root-only"]).first)
        #expect(root["outcome"] as? String == "holds", "\(root)")
    }

    /// The attack of issue 53: uid 65534 connects, then execs a program that gains privileges (a
    /// setuid-root one, or one with a file capability and no uid change) and waits, while a child
    /// sends the call on the inherited connection. The kernel pinned uid 65534 at connect; the
    /// program's capabilities are not the client's. Before, both gates answered satisfied.
    @Test(
        "a client that execs a setuid or file-capability program after connecting is not decided as that program, with or without SO_PEERPIDFD"
    )
    func execAfterConnect() async throws {
        let policy =
            PrivilegedPrograms.capabilitiesTheyGain + """
                gates:
                  sys-admin: { require: sys-admin }
                  bind: { require: net-bind }
                """
        let programs = try PrivilegedPrograms()
        // As run here (root, every capability); on a kernel without SO_PEERPIDFD; and without
        // CAP_SYS_PTRACE, as capctld.service runs it, where another process's program cannot be read.
        let withoutPtrace = ["/usr/bin/setpriv", "--bounding-set=-sys_ptrace", "--inh-caps=-sys_ptrace"]
        for wrapper in [[], [builtProduct("capability-probe"), "exec-without-peer-pidfd"], withoutPtrace] {
            let pinned = wrapper.isEmpty
            let daemon = try await Daemon(policy: policy, wrapper: wrapper)
            func check(_ gate: String) -> String {
                #"{"method":"org.capctl.gates.Check","parameters":{"gate":"\#(gate)"}}\0"#
            }
            let setuid = try await PrivilegedPrograms.execAfterConnect(
                daemon.socket, request: check("sys-admin"), program: programs.setuidRoot)
            #expect(setuid.program.hasPrefix("uid=65534,0 "), "the exec made it root: \(setuid.program)")
            #expect(setuid.reply.contains(#""outcome":"undecided""#), "\(wrapper): \(setuid.reply)")
            let fileCapability = try await PrivilegedPrograms.execAfterConnect(
                daemon.socket, request: check("bind"), program: programs.fileCapability)
            #expect(fileCapability.program == "uid=65534,65534 capeff=0000000000000400", "\(fileCapability.program)")
            #expect(fileCapability.reply.contains(#""outcome":"undecided""#), "\(wrapper): \(fileCapability.reply)")
            // Asked once before the exec on the same connection (its gate's condition built and
            // kept for the connection): the call after the exec is still decided anew.
            let askedFirst = try await PrivilegedPrograms.execAfterAsking(
                daemon.socket, request: check("bind"), program: programs.fileCapability)
            #expect(
                askedFirst.before.contains(pinned ? #""outcome":"fails""# : #""outcome":"undecided""#),
                "\(wrapper): \(askedFirst.before)")
            #expect(askedFirst.program == "uid=65534,65534 capeff=0000000000000400", "\(askedFirst.program)")
            #expect(askedFirst.reply.contains(#""outcome":"undecided""#), "\(wrapper): \(askedFirst.reply)")
            // What the client holds itself still counts where the peer is pinned: the capability
            // given to it as systemd's AmbientCapabilities= gives it, across a plain exec.
            let ambient = try await PrivilegedPrograms.execAfterConnect(
                daemon.socket, request: check("bind"), program: "/bin/sleep",
                credentials: ["--clear-groups", "--inh-caps=+net_bind_service", "--ambient-caps=+net_bind_service"])
            #expect(
                ambient.reply.contains(pinned ? #""outcome":"holds""# : #""outcome":"undecided""#),
                "\(wrapper): \(ambient.reply)")
            // Root's own set is read as ever: the gates can open (where the process can be read).
            let root = Self.decision(try Self.client(daemon.socket, ["check", "sys-admin"]).first)
            #expect(root["outcome"] as? String == (pinned ? "holds" : "undecided"), "\(root)")
        }
    }

    @Test(
        "CheckForSubject: a process that exec'd a privileged program between its reference and the call is not decided as that program"
    )
    func checkForSubjectAfterExec() async throws {
        let daemon = try await Daemon(
            policy: """
                capabilities:
                  net-bind: { kind: process-capability, capability: CAP_NET_BIND_SERVICE }
                gates:
                  bind: { require: net-bind }
                """)
        let programs = try PrivilegedPrograms()
        /// The reference a caller took before the exec (pid, start time, the uid it connected as),
        /// and the decision asked with it once the exec is done.
        func decided(after program: String, credentials: [String] = ["--clear-groups"]) async throws -> (
            program: String, reply: [String: Any]
        ) {
            let process = try DaemonProcess(
                ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534"] + credentials
                    + [builtProductForAnyUser("capability-probe"), "exec-after-connect", "-", "", program, "30"],
                environment: [:])
            defer { process.stop() }
            let exec = await process.nextLine() ?? ""
            let reference = (await process.nextLine() ?? "").dropFirst("process: ".count).split(separator: ",")
            #expect(reference.count == 3 && reference[0] == "\(process.pid)", "\(reference)")
            guard reference.count == 3 else { return (exec, [:]) }
            let reply = try Self.client(
                daemon.socket,
                ["check-subject", "bind", "pid=\(reference[0])", "startTime=\(reference[1])", "uid=\(reference[2])"]
            ).first
            return (exec, reply ?? [:])
        }
        let fileCapability = try await decided(after: programs.fileCapability)
        #expect(fileCapability.program == "program: uid=65534,65534 capeff=0000000000000400")
        #expect(Self.decision(fileCapability.reply)["outcome"] as? String == "undecided", "\(fileCapability.reply)")
        let setuid = try await decided(after: programs.setuidRoot)
        #expect(setuid.program.hasPrefix("program: uid=65534,0 "), "\(setuid.program)")
        #expect(setuid.reply["error"] as? String == "org.capctl.gates.SubjectMismatch", "\(setuid.reply)")
        let ambient = try await decided(
            after: "/bin/sleep",
            credentials: ["--clear-groups", "--inh-caps=+net_bind_service", "--ambient-caps=+net_bind_service"])
        #expect(Self.decision(ambient.reply)["outcome"] as? String == "holds", "\(ambient.reply)")
    }

    @Test(
        "records that reach no log are said: on standard error (the first at once, then at most once a minute, the rest as it stops), in Metrics and in root's Status"
    )
    func lostRecordsAreSaid() async throws {
        // The test's Daemon names an audit socket nobody listens on: every record is lost.
        let daemon = try await Daemon()
        #expect(Self.decision(try Self.client(daemon.socket, ["check", "root-only"]).first)["outcome"] != nil)
        #expect(await daemon.process.waitForOutput(containing: "capctld: 1 audit record(s) reached no log"))
        let status = try Self.client(daemon.socket, ["status"]).first ?? [:]
        #expect(status["undeliveredAuditRecords"] as? Int == 2, "the check's and this call's: \(status)")
        let unprivileged = try Self.client(daemon.socket, ["status"], uid: 65534).first ?? [:]
        #expect(unprivileged["undeliveredAuditRecords"] == nil, "root's alone: \(unprivileged)")
        // Root's Status also says what policy is served; nobody else's does.
        let served = status["policy"] as? [String: Any]
        #expect(served?["problems"] as? [String] == [] && (served?["files"] as? [String])?.count == 1, "\(status)")
        #expect(unprivileged["policy"] == nil, "\(unprivileged)")
        let metrics = try Self.client(daemon.socket, ["metrics"]).first?["text"] as? String ?? ""
        #expect(metrics.contains("capctld_audit_records_undelivered_total 3"), "\(metrics)")
        kill(daemon.process.pid, SIGTERM)
        var notices: [String] = []
        while let line = daemon.process.readLineBlocking() {
            if line.contains("reached no log") { notices.append(line) }
        }
        #expect(daemon.process.waitUntilExit() == 0)
        // Said at the first loss, then the other two in one line as it stopped: not a line each.
        #expect(notices.count == 2, "\(notices)")
        #expect(notices.first?.hasSuffix("; 1 since start") == true, "\(notices)")
        #expect(notices.last?.hasPrefix("capctld: 2 audit record(s) reached no log") == true, "\(notices)")
        #expect(notices.last?.hasSuffix("; 3 since start") == true, "\(notices)")
    }

    /// journald limits each service (the unit its cgroup names) to a burst of records per interval
    /// and drops the rest, whoever they were for. Here the burst is 20 (journald scales it with free
    /// space: with a burst of 50, a private journald here kept 212 of 1,000 records from one unit,
    /// so 20 keeps well under 400); uid 65534 makes 400 calls, then uid 4321
    /// one. Without a bound per user (`--audit-limit 0`), uid 4321's record is dropped: the flood
    /// crowds it out. With capctld's bound (10 here, 100 by default), uid 65534 writes its 10 and one
    /// summary, and uid 4321's record is kept.
    @Test(
        "one user's calls cannot crowd another's records out of the journal's rate limit: each user's records are bounded, then summarized",
        .enabled(if: JournalReceiver.isAvailable && ControlGroup.isAvailable, "needs journald and a cgroup2 hierarchy")
    )
    func auditBoundedPerUser() async throws {
        let journal = try JournalReceiver(configuration: ["RateLimitIntervalSec=60s", "RateLimitBurst=20"])
        func flood(limit: Int, method: [String]) async throws -> [[String: String]] {
            let group = try ControlGroup(unit: "capctld-flood")
            let daemon = try await Daemon(arguments: ["--audit-limit", String(limit)], journal: (journal, group))
            let flood = try Self.client(daemon.socket, ["repeat", "400"] + method, uid: 65534)
            #expect(flood.first?["calls"] as? Int == 400, "\(flood)")
            let other = Self.decision(try Self.client(daemon.socket, ["check", "root-only"], uid: 4321).first)
            #expect(other["outcome"] as? String == "fails", "\(other)")
            kill(daemon.process.pid, SIGTERM)
            #expect(await daemon.process.waitForOutput(containing: "capctld: stopped"))
            _ = daemon.process.waitUntilExit()
            let mine = group.path
            return try journal.records(identifier: "capctld").filter {
                $0["_SYSTEMD_CGROUP"].map(mine.hasSuffix) ?? false
            }
        }
        let unbounded = try await flood(limit: 0, method: ["check", "root-only"])
        #expect(
            !unbounded.contains { $0["CAPCTL_UID"] == "4321" },
            "the test's premise: without a bound the journal drops uid 4321's record (\(unbounded.count) kept)")
        for method in [["check", "root-only"], ["status"]] {
            let bounded = try await flood(limit: 10, method: method)
            let flooding = bounded.filter { $0["CAPCTL_UID"] == "65534" }
            #expect(flooding.count == 11, "\(method): 10 records and a summary: \(flooding.count)")
            let summary = flooding.last ?? [:]
            #expect(summary["CAPCTL_ACTION"] == "summary", "\(summary)")
            #expect(summary["CAPCTL_REASONS"]?.hasPrefix("390 more decision(s) for uid 65534") == true, "\(summary)")
            #expect(bounded.contains { $0["CAPCTL_UID"] == "4321" }, "\(method): uid 4321's record is kept")
        }
    }

    @Test("one user answers at most three logins at once: a fourth Authorize is Busy, other users are asked meanwhile")
    func conversationsPerUser() async throws {
        let daemon = try await Daemon()
        func asking(_ name: String) throws -> (DaemonProcess, String) {
            let answers = Self.fifo(daemon.directory, name)
            let process = try Self.running(daemon, ["authorize", "admin-login", answers])
            return (process, answers)
        }
        var pending: [(DaemonProcess, String)] = []
        defer { for (process, _) in pending { process.stop() } }
        // Three logins of one user, each from a session of its own (one session's logins would
        // take turns): each is asked, so all three count.
        for index in 0..<3 {
            pending.append(try asking("answers-\(index)"))
            #expect(
                await pending[index].0.nextLine()?.contains(#""kind": "secret""#) == true, "login \(index) is asked")
        }
        let fourth = try Self.client(daemon.socket, ["authorize", "admin-login"], uid: 65534, input: "secret\n")
        #expect(fourth.first?["error"] as? String == "org.capctl.gates.Busy", "\(fourth)")
        // Another user is asked meanwhile.
        let other = try Self.client(daemon.socket, ["authorize", "admin-login"], uid: 4321, input: "secret\n")
        #expect(Self.decision(other.last)["outcome"] as? String == "holds", "\(other)")
        // The first login answered: the user may start another.
        Self.write("secret\n", toFIFO: pending[0].1)
        #expect(await pending[0].0.nextLine()?.contains(#""outcome": "holds""#) == true)
        #expect(pending[0].0.waitUntilExit() == 0)
        pending.append(try asking("answers-3"))
        #expect(await pending[3].0.nextLine()?.contains(#""kind": "secret""#) == true, "admitted, not Busy")
    }

    @Test("one user has at most four watches open: a fifth is Busy, another user's is served")
    func watchesPerUser() async throws {
        let daemon = try await Daemon()
        var watchers: [DaemonProcess] = []
        defer { for watcher in watchers { watcher.stop() } }
        for _ in 0..<4 {
            let watcher = try Self.watcher(daemon, "root-only", count: 2)
            watchers.append(watcher)
            #expect(await watcher.nextLine()?.contains(#""outcome": "fails""#) == true, "the watch is open")
        }
        let fifth = try Self.client(daemon.socket, ["watch", "root-only", "1"], uid: 65534)
        #expect(fifth.first?["error"] as? String == "org.capctl.gates.Busy", "\(fifth)")
        let other = try Self.client(daemon.socket, ["watch", "root-only", "1"], uid: 4321)
        #expect(Self.decision(other.first)["outcome"] as? String == "fails", "\(other)")
    }
}
