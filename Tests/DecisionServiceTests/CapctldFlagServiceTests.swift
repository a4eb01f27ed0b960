import Foundation
import Glibc
import TestSupport
import Testing

/// capctld with a flag service: the network is talked to by the unprivileged helper alone, never by
/// a thread of the root daemon, which keeps CAP_SETUID, CAP_SETGID and CAP_DAC_READ_SEARCH.
@Suite(
    "capctld with a flag service", .serialized,
    .enabled(if: NginxFixture.isAvailable, "needs root, nginx-light and openssl"), .timeLimit(.minutes(2)))
struct CapctldFlagServiceTests {
    static let document = """
        {"flags": {"export-enabled": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "on"}}}
        """

    /// A preloaded library that writes the pid of every process that calls connect(2) for an
    /// IPv4 or IPv6 address to the file `CONNECT_LOG` names. capctld's helper starts with an empty
    /// environment, so only capctld's own threads are watched.
    static func connectRecorder(in directory: TemporaryDirectory) throws -> String {
        let source = try directory.write(
            """
            #define _GNU_SOURCE
            #include <dlfcn.h>
            #include <fcntl.h>
            #include <stdio.h>
            #include <stdlib.h>
            #include <sys/socket.h>
            #include <unistd.h>

            int connect(int fd, const struct sockaddr *address, socklen_t length) {
                int (*real)(int, const struct sockaddr *, socklen_t) = dlsym(RTLD_NEXT, "connect");
                const char *log = getenv("CONNECT_LOG");
                if (log && address && (address->sa_family == AF_INET || address->sa_family == AF_INET6)) {
                    int record = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
                    if (record >= 0) { dprintf(record, "%d\\n", (int)getpid()); close(record); }
                }
                return real(fd, address, length);
            }

            """, to: "connect-recorder.c")
        let library = directory.path + "/connect-recorder.so"
        let compiler = ["/usr/bin/cc", "/opt/swift/usr/bin/clang"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
        let built = try runProcess(
            try #require(compiler, "no C compiler"), ["-shared", "-fPIC", "-o", library, source, "-ldl"])
        #expect(built.status == 0, "\(built.standardError)")
        return library
    }

    @Test("a gate on a flag service holds through capctld; only its helper, as nobody, connects to the network")
    func onlyTheHelperConnects() async throws {
        let server = try NginxFixture()
        try server.serve("flags.json", Self.document)
        let work = try TemporaryDirectory(prefix: "capctld-flags")
        chmod(work.path, 0o755)
        let recorder = try Self.connectRecorder(in: work)
        let log = work.path + "/connects"
        let policy = """
            flags:
              http:
                - url: \(server.url("flags.json"))
                  ca-file: \(server.certificate.certificatePath)
                  timeout: 2s
                  max-staleness: 1h
            capabilities:
              export-flag: { kind: flag, flag: export-enabled }
            gates:
              export: { require: export-flag }
            """
        let daemon = try await CapctldTests.Daemon(
            policy: policy, environment: ["LD_PRELOAD": recorder, "CONNECT_LOG": log])
        let watcher = try CapctldTests.running(daemon, ["watch", "export", "2"])
        defer { watcher.stop() }
        // Without the service's flags the gate is undecided; it holds once the helper fetched them.
        var holds = false
        for _ in 0..<2 where !holds {
            holds = await watcher.nextLine()?.contains(#""outcome": "holds""#) == true
        }
        #expect(holds, "the flags came from the service")
        #expect(server.statuses.contains(200), "\(server.statuses)")
        // The recorder works: a connect from a process it is loaded in is written down.
        _ = try runProcess(
            "/usr/bin/python3", ["-c", "import socket; socket.socket().connect_ex(('127.0.0.1', 9))"],
            environment: ["LD_PRELOAD": recorder, "CONNECT_LOG": work.path + "/probe"])
        #expect(FileManager.default.fileExists(atPath: work.path + "/probe"), "the recorder records")
        let connects = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        #expect(connects.isEmpty, "capctld itself connected: pids \(connects)")
        let helper = try #require(DaemonProcess.children(of: daemon.process.pid).first, "capctld's helper runs")
        let status = try String(contentsOfFile: "/proc/\(helper)/status", encoding: .utf8)
        func field(_ name: String) -> String {
            status.split(separator: "\n").first { $0.hasPrefix(name + ":") }.map {
                $0.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces)
            } ?? "?"
        }
        #expect(DaemonProcess.command(of: helper) == "capctl-flag-sou", "\(DaemonProcess.command(of: helper) ?? "")")
        #expect(field("Uid") == "65534\t65534\t65534\t65534" && field("Groups") == "", "\(status)")
        #expect(field("NoNewPrivs") == "1" && field("CapEff") == "0000000000000000", "\(status)")
    }
}
