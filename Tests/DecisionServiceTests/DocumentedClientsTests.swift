import Foundation
import Glibc
import TestSupport
import Testing

/// The clients of Docs/Decisions.md's "From Python, Go and the shell", each taken from the page
/// (the block after its `<!-- example: NAME -->` marker), pointed at a capctld of the test's own,
/// and run as root (the gate holds) and as uid 65534 (it does not).
@Suite(
    "the documented clients", .serialized, .enabled(if: geteuid() == 0, "needs root to run clients as uid 65534"),
    .timeLimit(.minutes(2)))
struct DocumentedClientsTests {
    /// The block that follows `<!-- example: name -->` in Docs/Decisions.md.
    static func example(_ name: String) throws -> String {
        let page = try String(
            contentsOfFile: URL(fileURLWithPath: #filePath).deletingLastPathComponent().path
                + "/../../Docs/Decisions.md", encoding: .utf8)
        let marker = try #require(page.range(of: "<!-- example: \(name) -->\n"), "no example \(name)")
        let open = try #require(page.range(of: "\n", range: marker.upperBound..<page.endIndex))
        let close = try #require(page.range(of: "\n```", range: open.upperBound..<page.endIndex))
        return String(page[open.upperBound..<close.lowerBound]) + "\n"
    }

    /// A directory every user may read, with `text` written to `name` in it.
    static func script(_ name: String, _ text: String) throws -> (TemporaryDirectory, String) {
        let directory = try TemporaryDirectory(prefix: "documented-client")
        chmod(directory.path, 0o755)
        let path = try directory.write(text, to: name)
        chmod(path, 0o755)
        return (directory, path)
    }

    /// `command` as root and as uid 65534: what each printed on standard output.
    static func asRootAndNobody(_ command: [String], environment: [String: String]) throws -> [String] {
        try [nil, "65534"].map { uid in
            let full =
                uid.map { ["/usr/bin/setpriv", "--reuid=\($0)", "--regid=\($0)", "--clear-groups"] + command }
                ?? command
            let run = try runProcess(full[0], Array(full.dropFirst()), environment: environment)
            #expect(run.status == 0, "\(full): \(run.standardOutput)\(run.standardError)")
            return run.standardOutput
        }
    }

    @Test("Python: the three-line check")
    func pythonCheck() async throws {
        let python = try #require(CapctldTests.python, "no varlink client: run Scripts/test")
        let code = try Self.example("python-check")
        #expect(code.split(separator: "\n").count == 3, "\(code)")
        let daemon = try await CapctldTests.Daemon()
        let (directory, script) = try Self.script(
            "check.py", code.replacingOccurrences(of: "/run/capctl/capctld.sock", with: daemon.socket))
        _ = directory
        let printed = try Self.asRootAndNobody([python, script], environment: ["PATH": "/usr/bin:/bin"])
        #expect(printed == ["holds\n", "fails\n"], "\(printed)")
    }

    @Test("the shell: python3 -m varlink.cli call prints the decision as JSON")
    func shellCall() async throws {
        let python = try #require(CapctldTests.python, "no varlink client: run Scripts/test")
        let daemon = try await CapctldTests.Daemon()
        let code = try Self.example("shell-call").replacingOccurrences(
            of: "/run/capctl/capctld.sock", with: daemon.socket)
        // `python3` is the client's interpreter (the venv with the varlink package) first on PATH.
        let bin = URL(fileURLWithPath: python).deletingLastPathComponent().path
        let printed = try Self.asRootAndNobody(["/bin/sh", "-c", code], environment: ["PATH": bin + ":/usr/bin:/bin"])
        let outcomes = printed.map { output -> String? in
            let reply = (try? JSONSerialization.jsonObject(with: Data(output.utf8))) as? [String: Any]
            return (reply?["decision"] as? [String: Any])?["outcome"] as? String
        }
        #expect(outcomes == ["holds", "fails"], "\(printed)")
    }

    @Test("Go: github.com/varlink/go from Debian's golang-github-varlink-go-dev, built offline")
    func goCheck() async throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: "/usr/bin/go")
                && FileManager.default.fileExists(atPath: "/usr/share/gocode/src/github.com/varlink/go/varlink"),
            "needs golang-go and golang-github-varlink-go-dev: Scripts/test installs them")
        let daemon = try await CapctldTests.Daemon()
        let (directory, source) = try Self.script(
            "main.go",
            try Self.example("go-check").replacingOccurrences(of: "/run/capctl/capctld.sock", with: daemon.socket))
        let binary = directory.path + "/check"
        let built = try runProcess(
            "/usr/bin/go", ["build", "-o", binary, source],
            environment: [
                "PATH": "/usr/bin:/bin", "GO111MODULE": "off", "GOPATH": "/usr/share/gocode",
                "GOCACHE": directory.path + "/cache", "HOME": directory.path,
            ])
        try #require(built.status == 0, "\(built.standardOutput)\(built.standardError)")
        chmod(binary, 0o755)
        let printed = try Self.asRootAndNobody([binary], environment: ["PATH": "/usr/bin:/bin"])
        #expect(printed == ["holds\n", "fails\n"], "\(printed)")
    }

    @Test(
        "systemd's varlinkctl (systemd 255 and later)",
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: "/usr/bin/varlinkctl"), "no varlinkctl (systemd < 255)"))
    func varlinkctlCall() async throws {
        let daemon = try await CapctldTests.Daemon()
        let code = try Self.example("varlinkctl-call").replacingOccurrences(
            of: "/run/capctl/capctld.sock", with: daemon.socket)
        let printed = try Self.asRootAndNobody(["/bin/sh", "-c", code], environment: ["PATH": "/usr/bin:/bin"])
        #expect(
            printed.first?.contains("\"holds\"") == true && printed.last?.contains("\"fails\"") == true, "\(printed)")
    }
}
