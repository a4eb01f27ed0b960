import Foundation
import Glibc
import TestSupport
import Testing

/// The released layout (Scripts/build-release-capctl): capctl's front, which answers a plain
/// `capctl check GATE` through capctld without the Swift runtime, and capctl as the library it
/// loads for everything else; held to the same release build's capctl as one executable, output
/// for output, on a real capctld and on a service that answers what a test tells it to.
///
/// Scripts/test builds the layout (with the .deb) before the tests run; without it these tests
/// fail, saying how to make it.
@Suite(
    "capctl's front, in the released layout, says what capctl says", .serialized,
    .enabled(if: geteuid() == 0, "needs root to run capctl as uid 65534"), .timeLimit(.minutes(3)))
struct CapctlFrontTests {
    static let policy = """
        capabilities:
          is-root: { kind: user, user: root }
          admin: { kind: pam, service: capctld-test, user: alice, service-directory: PAM }
        gates:
          root-only: { require: is-root, description: Root alone. }
          not-root: { require: { not: is-root } }
          admin-login: { require: admin }
          marker: { require: is-root }
        """

    /// Copies of the released build, where uid 65534 can run them: the front alone, the front
    /// with its library, and capctl as one executable.
    struct Builds {
        let front: String
        let frontAlone: String
        let executable: String
    }

    static let builds: Result<Builds, LayoutMissing> = {
        let build = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../.build/release-capctl").standardizedFileURL.path
        let front = build + "/layout/bin/capctl"
        let library = build + "/layout/lib/capctl/libcapctl.so"
        let executable = build + "/release/capctl"
        for path in [front, library, executable] where !FileManager.default.isExecutableFile(atPath: path) {
            return .failure(LayoutMissing(path: path))
        }
        let directory = TestRunDirectory.path + "/released-" + UUID().uuidString
        for folder in ["", "/full/bin", "/full/lib/capctl", "/alone/bin", "/executable"] {
            try? FileManager.default.createDirectory(atPath: directory + folder, withIntermediateDirectories: true)
            chmod(directory + folder, 0o755)
        }
        chmod(directory + "/full/lib", 0o755)
        for (source, copy) in [
            (front, "/full/bin/capctl"), (library, "/full/lib/capctl/libcapctl.so"), (front, "/alone/bin/capctl"),
            (executable, "/executable/capctl"),
        ] {
            _ = try? runProcess("/bin/cp", [source, directory + copy])
            chmod(directory + copy, 0o755)
        }
        return .success(
            Builds(
                front: directory + "/full/bin/capctl", frontAlone: directory + "/alone/bin/capctl",
                executable: directory + "/executable/capctl"))
    }()

    struct LayoutMissing: Error, CustomStringConvertible {
        let path: String
        var description: String {
            "no released layout: \(path) is missing; Scripts/build-release-capctl makes it (Scripts/test does, with the .deb)"
        }
    }

    /// `program` as `uid` (nil: root) with `arguments`, asking the service at `socket`; the
    /// process ids in root's explanations written as `pid N`, so two runs compare.
    static func run(
        _ program: String, _ arguments: [String], socket: String, uid: UInt32? = nil, extra: [String: String] = [:]
    ) throws -> Run {
        var command = [program] + arguments
        if let uid { command = ["/usr/bin/setpriv", "--reuid=\(uid)", "--regid=\(uid)", "--clear-groups"] + command }
        let environment = ["PATH": "/usr/bin:/bin", "CAPCTL_DAEMON_SOCKET": socket, "HOME": "/nonexistent"]
            .merging(extra) { _, given in given }
        let output = try runProcess(command[0], Array(command.dropFirst()), environment: environment)
        func normalized(_ text: String) -> String {
            text.replacingOccurrences(of: #"pid [0-9]+"#, with: "pid N", options: .regularExpression)
        }
        return Run(
            status: output.status, standardOutput: normalized(output.standardOutput),
            standardError: normalized(output.standardError))
    }

    /// A run's status and outputs.
    struct Run {
        let status: Int32
        let standardOutput: String
        let standardError: String
    }

    /// Expects `program`'s run to be the executable's, in status and in both outputs.
    static func expectSame(
        _ program: String, as executable: String, _ arguments: [String], socket: String, uid: UInt32?,
        extra: [String: String] = [:], sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> Run {
        let expected = try run(executable, arguments, socket: socket, uid: uid, extra: extra)
        let got = try run(program, arguments, socket: socket, uid: uid, extra: extra)
        let label = "\(arguments) as uid \(uid ?? 0)"
        #expect(
            got.status == expected.status, "\(label): \(got.status) \(got.standardError)",
            sourceLocation: sourceLocation)
        #expect(got.standardOutput == expected.standardOutput, "\(label)", sourceLocation: sourceLocation)
        #expect(got.standardError == expected.standardError, "\(label)", sourceLocation: sourceLocation)
        return got
    }

    @Test("a plain check is answered by the front alone, word for word and status for status as capctl")
    func frontAlone() async throws {
        let builds = try Self.builds.get()
        let daemon = try await CapctldTests.Daemon(policy: Self.policy)
        let cases: [(arguments: [String], uid: UInt32?, status: Int32)] = [
            (["check", "root-only", "--non-interactive"], 65534, 1),
            (["check", "root-only"], 65534, 1),
            (["check", "not-root", "--non-interactive"], 65534, 0),
            (["check", "admin-login", "--non-interactive"], 65534, 2),
            (["check", "--no-prompt", "admin-login"], 65534, 2),
            (["check", "admin-login", "--non-interactive", "--exec-condition"], 65534, 1),
            (["check", "root-only", "--exec-condition"], 65534, 1),
            (["check", "not-root", "--exec-condition", "--no-prompt", "--non-interactive"], 65534, 0),
            // Root is told why; for a gate that holds, capctl prints no reasons, and neither does the front.
            (["check", "root-only", "--non-interactive"], nil, 0),
            (["check", "root-only"], nil, 0),
        ]
        for (arguments, uid, status) in cases {
            // With no library next to it, only the front can have answered.
            let answered = try Self.expectSame(
                builds.frontAlone, as: builds.executable, arguments, socket: daemon.socket, uid: uid)
            #expect(answered.status == status, "\(arguments): \(answered.standardOutput)\(answered.standardError)")
        }
        let failing = try Self.run(builds.frontAlone, ["check", "root-only"], socket: daemon.socket, uid: 65534)
        #expect(
            failing.standardOutput
                == "root-only: fails\n  why: capctld tells root only; the reasons are in its audit trail\n")
    }

    @Test("every other command line goes to capctl, which says what it says as one executable")
    func handedOn() async throws {
        let builds = try Self.builds.get()
        let daemon = try await CapctlFrontTests.daemon()
        let cases: [(arguments: [String], uid: UInt32?, extra: [String: String])] = [
            // The front asks, and hands capctl the connection with the reply unread.
            (["check", "not-root", "--non-interactive"], nil, [:]),  // root's reasons, printed
            (["check", "nowhere", "--non-interactive"], 65534, [:]),  // an error reply
            (["check", "admin-login"], 65534, [:]),  // asking: no terminal here, so dismissed
            // capctl's own from the start.
            (["check", "root-only", "--json"], 65534, [:]),
            (["check", "root-only", "--explain"], nil, [:]),
            (["check", "root-only", "--non-interactive", "--non-interactive"], 65534, [:]),
            (["check", "root only"], 65534, [:]),
            (["check", "root-only", "--exec-condition=yes"], 65534, [:]),
            (["check"], 65534, [:]),
            (["status"], 65534, [:]),
            (["--version"], 65534, [:]),
            (["check", "root-only", "--non-interactive"], 65534, ["CAPCTL_DAEMON_SOCKET": ""]),
            (["check", "root-only", "--non-interactive"], 65534, ["CAPCTL_DAEMON_SOCKET": daemon.socket + ".none"]),
            (
                ["check", "root-only", "--non-interactive"], 65534,
                ["TRACEPARENT": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"]
            ),
        ]
        for (arguments, uid, extra) in cases {
            let answered = try Self.expectSame(
                builds.front, as: builds.executable, arguments, socket: daemon.socket, uid: uid, extra: extra)
            #expect(
                !answered.standardError.contains("cannot load"), "\(arguments): \(answered.standardError)")
            // Without the library the front cannot say it: it fails closed, and says why.
            let alone = try Self.run(builds.frontAlone, arguments, socket: daemon.socket, uid: uid, extra: extra)
            let execCondition = arguments.contains { $0.hasPrefix("--exec-condition") }
            #expect(alone.status == (execCondition ? 255 : 70), "\(arguments): \(alone.standardOutput)")
            #expect(
                alone.standardError.hasPrefix("capctl: cannot load capctl's commands: "),
                "\(arguments): \(alone.standardError)")
        }
    }

    /// A capctld on ``policy``.
    static func daemon(audit: SyslogReceiver? = nil) async throws -> CapctldTests.Daemon {
        try await CapctldTests.Daemon(policy: policy, audit: audit)
    }

    @Test(
        "a reply the front hands on is read, never asked for again: one call, one audit record",
        .enabled(if: SyslogReceiver.isAvailable, "needs rsyslogd"))
    func oneDecision() async throws {
        let builds = try Self.builds.get()
        let audit = try SyslogReceiver()
        let daemon = try await Self.daemon(audit: audit)
        // Root is told why not-root fails: the front hands that reply to capctl.
        let handed = try Self.run(builds.front, ["check", "not-root", "--non-interactive"], socket: daemon.socket)
        #expect(handed.status == 1 && handed.standardOutput.contains("not-root: fails\n"), "\(handed.standardOutput)")
        let answered = try Self.run(builds.frontAlone, ["check", "marker"], socket: daemon.socket)
        #expect(answered.status == 0, "\(answered.standardOutput)\(answered.standardError)")
        let first = await audit.nextRecord() ?? ""
        let second = await audit.nextRecord() ?? ""
        #expect(first.contains(#"CAPCTL_GATE="not-root""#), "\(first)")
        #expect(second.contains(#"CAPCTL_GATE="marker""#), "a second call of not-root? \(second)")
    }

    @Test("a library others may write is not loaded")
    func untrustedLibrary() throws {
        let builds = try Self.builds.get()
        let library = URL(fileURLWithPath: builds.front).deletingLastPathComponent()
            .appendingPathComponent("../lib/capctl/libcapctl.so").standardizedFileURL.path
        chmod(library, 0o757)
        defer { chmod(library, 0o755) }
        let refused = try Self.run(builds.front, ["--version"], socket: "/nonexistent")
        #expect(refused.status == 70, "\(refused.standardOutput)")
        #expect(refused.standardError.contains("may be written by others: not loaded"), "\(refused.standardError)")
        chmod(library, 0o755)
        // Another user's file, though nobody else may write it: root does not run their code.
        chown(library, 65534, 65534)
        defer { chown(library, 0, 0) }
        let othersFile = try Self.run(builds.front, ["--version"], socket: "/nonexistent")
        #expect(othersFile.status == 70, "\(othersFile.standardOutput)")
        #expect(
            othersFile.standardError.contains("is owned by neither root nor you: not loaded"),
            "\(othersFile.standardError)")
        chown(library, 0, 0)
        let trusted = try Self.run(builds.front, ["--version"], socket: "/nonexistent")
        #expect(trusted.status == 0, "\(trusted.standardError)")
        let directory = (library as NSString).deletingLastPathComponent
        chmod(directory, 0o777)
        defer { chmod(directory, 0o755) }
        let inOpenDirectory = try Self.run(builds.front, ["--version"], socket: "/nonexistent")
        #expect(inOpenDirectory.status == 70, "\(inOpenDirectory.standardOutput)")
        #expect(
            inOpenDirectory.standardError.contains("is in a directory others may change"),
            "\(inOpenDirectory.standardError)")
    }

    /// Replies a service may send, each read by the front and by capctl: where the front does not
    /// read one exactly as capctl does, it leaves it to capctl.
    static let replies: [String] = [
        #"{"parameters":{"decision":{"gate":"g","outcome":"holds","description":null,"actions":[],"explanation":null}}}"#,
        #"{"parameters":{"decision":{"gate":"g","outcome":"fails","description":"d","actions":["a","b"],"explanation":null}}}"#,
        #"{"parameters":{"decision":{"gate":"g","outcome":"undecided","description":null,"actions":[],"explanation":null}}}"#,
        #"{"parameters":{"decision":{"gate":"g","outcome":"dismissed","description":null,"actions":[],"explanation":null}}}"#,
        #"{"parameters":{"decision":{"gate":"g","outcome":"needsInteraction","description":null,"actions":[],"explanation":null}}}"#,
        #"{"parameters":{"decision":{"gate":"g","outcome":"maybe","description":null,"actions":[],"explanation":null}}}"#,
        #"{"parameters":{"decision":{"gate":"g","outcome":"holdsX","description":null,"actions":[],"explanation":null}}}"#,
        #"{"parameters":{"decision":{"gate":"g","outcome":"hold","description":null,"actions":[],"explanation":null}}}"#,
        #"{"parameters":{"decision":{"gate":"g","outcome":"Holds","description":null,"actions":[],"explanation":null}}}"#,
        #"{"parameters":{"decision":{"gate":"g","outcome":"holds","description":null,"actions":[],"explanation":{"condition":"c","outcome":"passedX","reason":"r","children":[]}}}}"#,
        #"{"parameters":{"decision":{"gate":"g\u0041","outcome":"holds","description":null,"actions":[],"explanation":null}}}"#,
        #"{"parameters":{"decision":{"gate":"g","outcome":"holds","description":"caf\u00e9","actions":[],"explanation":null}}}"#,
        #"{"parameters":{"decision":{"gate":"g","outcome":"holds","description":null,"actions":[],"explanation":null,"more":1}}}"#,
        #"{"parameters":{"decision":{"gate":"g","outcome":"holds","description":null,"actions":[],"explanation":null}},"continues":true}"#,
        #"{"parameters":{"decision":{"gate":"g","outcome":"holds","description":null,"actions":[1],"explanation":null}}}"#,
        #"{"parameters":{"decision":{"gate":"g","outcome":"holds","description":null,"actions":[],"explanation":{"condition":"c","outcome":"passed","reason":"r","children":[{"condition":"d","outcome":"notChecked","reason":"s","children":[]}]}}}}"#,
        #"{"parameters":{"decision":{"gate":"g","outcome":"holds","description":null,"actions":[],"explanation":{"condition":"c","outcome":"sure","reason":"r","children":[]}}}}"#,
        #"{"parameters":{"decision":{"gate":"g","outcome":"fails","description":null,"actions":[],"explanation":{"condition":"c","outcome":"failed","reason":"r","children":[]}}}}"#,
        #"{"parameters":{"decision":{"gate":"g","outcome":"holds","description":""#
            + String(repeating: "x", count: 20000) + #"","actions":[],"explanation":null}}}"#,
        #"{"error":"org.capctl.gates.NoSuchGate","parameters":{"gate":"g"}}"#,
        #"{"error":"org.varlink.service.PermissionDenied"}"#,
        #"{"parameters":{"decision":{"gate":"g","outcome":"holds""#,
        "not json",
        "",
    ]

    @Test("replies the front does not read exactly as capctl does are capctl's: every reply says the same")
    func replies() throws {
        let builds = try Self.builds.get()
        for reply in Self.replies {
            // The last, empty, one: the service closes without a reply.
            let service = try CannedService(reply: reply.isEmpty ? nil : Array(reply.utf8) + [0])
            for arguments in [["check", "g", "--non-interactive"], ["check", "g", "--exec-condition"]] {
                _ = try Self.expectSame(
                    builds.front, as: builds.executable, arguments, socket: service.socket, uid: 65534)
            }
        }
    }

    @Test("seeded changes to real replies, byte by byte: what the front answers, capctl answers alike")
    func mutatedReplies() throws {
        let builds = try Self.builds.get()
        let service = try CannedService(reply: nil)
        var random = SplitMix(seed: 0x5EED_F407)
        // Replies the front answers itself, each changed at random: a byte replaced (printable, a
        // quote, a backslash, a control character, a byte of UTF-8), taken out or put in, or the
        // reply cut short. A change that still reads as a plain reply must say the same through
        // the front as through capctl; any other is handed on, and must too.
        let originals = Self.replies.prefix(5).map { Array($0.utf8) }
        let alphabet = Array(#"{}[]:,"\ azAZ09.-"#.utf8) + [0x01, 0x1F, 0x7F, 0xC3, 0xA9]
        for round in 0..<150 {
            var reply = originals[round % originals.count]
            // Every other change near the outcome's word, where one byte changes the answer.
            let word = reply.indices.first { reply[$0...].starts(with: #","outcome":""#.utf8) }! + 11
            let position =
                round % 2 == 0
                ? word + Int(random.next() % 20) : Int(random.next() % UInt64(reply.count))
            let byte = alphabet[Int(random.next() % UInt64(alphabet.count))]
            switch random.next() % 4 {
            case 0: reply[position] = byte
            case 1: reply.remove(at: position)
            case 2: reply.insert(byte, at: position)
            default: reply = Array(reply[..<position])
            }
            service.reply = reply + [0]
            let arguments = round % 3 == 0 ? ["check", "g"] : ["check", "g", "--non-interactive"]
            _ = try Self.expectSame(builds.front, as: builds.executable, arguments, socket: service.socket, uid: 65534)
        }
    }

    /// A root service on a socket of its own that answers every call with `reply` (or closes at
    /// once, without one), then waits for its client to close.
    final class CannedService: @unchecked Sendable {
        let directory: TemporaryDirectory
        let socket: String
        private let listener: Int32
        private let lock = NSLock()
        private var current: [UInt8]?

        /// What the service answers every call with from now on (nil: it closes instead).
        var reply: [UInt8]? {
            get { lock.withLock { current } }
            set { lock.withLock { current = newValue } }
        }

        init(reply: [UInt8]?) throws {
            current = reply
            directory = try TemporaryDirectory(prefix: "canned-service")
            chmod(directory.path, 0o755)
            socket = directory.path + "/service.sock"
            listener = try listeningUnixSocket(at: socket)
            chmod(socket, 0o666)
            let listener = self.listener
            Thread.detachNewThread { [self] in
                while true {
                    let client = accept(listener, nil, nil)
                    guard client >= 0 else { return }
                    // A client of its own each: capctl keeps its first connection while it opens others.
                    let reply = self.reply
                    Thread.detachNewThread {
                        var byte: UInt8 = 0
                        // Each call, to its NUL, gets the reply; the connection ends when the client closes it.
                        while read(client, &byte, 1) == 1 {
                            guard byte == 0 else { continue }
                            guard let reply else { break }
                            _ = reply.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                        }
                        close(client)
                    }
                }
            }
        }

        deinit {
            shutdown(listener, Int32(SHUT_RDWR))
            close(listener)
        }
    }
}
