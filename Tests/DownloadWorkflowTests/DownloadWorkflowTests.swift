import DownloadWorkflowKit
import Foundation
import TestSupport
import Testing

/// The download workflow example, run as a command against a real HTTP server on 127.0.0.1
/// that fails on purpose: a 503, a dropped connection, a corrupt file, a stalled download.
@Suite("download workflow example", .timeLimit(.minutes(2)))
struct DownloadWorkflowTests {
    /// A real SQLite database with rows, gzip-compressed, and the metadata naming it.
    struct Published {
        let compressed: Data
        let metadata: Data
    }

    static func publish(rows: [String], in directory: TemporaryDirectory, sha256 override: String? = nil) throws
        -> Published
    {
        let path = directory.path(of: "source-\(UUID().uuidString).sqlite")
        let database = try SQLiteDatabase(path: path)
        try database.rows("CREATE TABLE catalog(name TEXT)")
        for row in rows { try database.rows("INSERT INTO catalog VALUES ('\(row)')") }
        // coreutils' digest: the example's is checked against one it did not compute.
        let sum = try runProcess("/usr/bin/sha256sum", [path]).standardOutput
        let sha = override ?? String(sum.prefix(64))
        _ = try runProcess("/usr/bin/gzip", ["-k", path])
        let compressed = try Data(contentsOf: URL(fileURLWithPath: path + ".gz"))
        let metadata = Data(#"{"database": "db.sqlite.gz", "sha256": "\#(sha)"}"#.utf8)
        return Published(compressed: compressed, metadata: metadata)
    }

    func run(_ server: HTTPTestServer, into destination: String, _ extra: [String] = [], input: String = "") throws
        -> ProcessOutput
    {
        try runProcess(
            builtProduct("download-workflow"),
            ["--server", "http://127.0.0.1:\(server.port)", "--into", destination] + extra, input: input)
    }

    /// What the destination directory holds besides `keep`: nothing staged may be left.
    func leftovers(_ directory: TemporaryDirectory, besides keep: Set<String>) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path(of: "target")).filter { !keep.contains($0) }
    }

    @Test("through a 503 and a dropped connection, the database arrives verified and nothing else is left")
    func retriesAndInstalls() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.directory("target")
        let published = try Self.publish(rows: ["alpha", "beta"], in: directory)
        let server = try HTTPTestServer([
            "/v1/metadata.json": [.status(503), .ok(published.metadata)],
            "/db.sqlite.gz": [.status(503), .drop, .ok(published.compressed)],
        ])
        defer { server.stop() }
        let destination = directory.path(of: "target/catalog.sqlite")
        let result = try run(server, into: destination)
        #expect(result.status == 0, "\(result.standardOutput)\(result.standardError)")
        #expect(result.standardOutput.contains("downloading /db.sqlite.gz (attempt 3)"))
        // Not a terminal: no progress bar.
        #expect(!result.standardError.contains("\r") && !result.standardError.contains("%"), "\(result.standardError)")
        #expect(
            try SQLiteDatabase(path: destination).rows("SELECT name FROM catalog ORDER BY name") == ["alpha", "beta"])
        #expect(server.requested.filter { $0 == "/db.sqlite.gz" }.count == 3)
        #expect(try leftovers(directory, besides: ["catalog.sqlite"]).isEmpty)
    }

    @Test("a corrupt download is refused: no database, nothing staged left")
    func corruptDownload() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.directory("target")
        let published = try Self.publish(rows: ["alpha"], in: directory)
        var corrupt = published.compressed
        corrupt[corrupt.count / 2] ^= 0xFF
        let server = try HTTPTestServer([
            "/v1/metadata.json": [.ok(published.metadata)], "/db.sqlite.gz": [.ok(corrupt)],
        ])
        defer { server.stop() }
        let result = try run(server, into: directory.path(of: "target/catalog.sqlite"))
        #expect(result.status == 1)
        #expect(try leftovers(directory, besides: []).isEmpty)
    }

    @Test("a database whose checksum differs from the metadata's is refused")
    func checksumMismatch() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.directory("target")
        let published = try Self.publish(rows: ["alpha"], in: directory, sha256: String(repeating: "0", count: 64))
        let server = try HTTPTestServer([
            "/v1/metadata.json": [.ok(published.metadata)], "/db.sqlite.gz": [.ok(published.compressed)],
        ])
        defer { server.stop() }
        let result = try run(server, into: directory.path(of: "target/catalog.sqlite"))
        #expect(result.status == 1)
        #expect(result.standardError.contains("checksum"), "\(result.standardError)")
        #expect(try leftovers(directory, besides: []).isEmpty)
    }

    @Test("the new-format flag picks the new metadata")
    func newFormatFlag() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.directory("target")
        let published = try Self.publish(rows: ["v2"], in: directory)
        let flags = try directory.write(
            #"{"flags": {"new-format": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "on"}}}"#,
            to: "flags.json")
        let server = try HTTPTestServer([
            "/v2/metadata.json": [.ok(published.metadata)], "/db.sqlite.gz": [.ok(published.compressed)],
        ])
        defer { server.stop() }
        let result = try run(server, into: directory.path(of: "target/catalog.sqlite"), ["--flags", flags])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(server.requested.first == "/v2/metadata.json")
    }

    @Test("replacing an existing database needs the administrator's login; without one the old database stays")
    func replacingNeedsLogin() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.directory("target")
        let published = try Self.publish(rows: ["new"], in: directory)
        let destination = directory.path(of: "target/catalog.sqlite")
        try Data("old database".utf8).write(to: URL(fileURLWithPath: destination))
        let server = try HTTPTestServer([
            "/v1/metadata.json": [.ok(published.metadata)], "/db.sqlite.gz": [.ok(published.compressed)],
        ])
        defer { server.stop() }
        let refused = try run(server, into: destination)
        #expect(refused.status == 1)
        #expect(try String(contentsOfFile: destination, encoding: .utf8) == "old database")
        #expect(try leftovers(directory, besides: ["catalog.sqlite"]).isEmpty)

        // With a PAM login (pam_matrix, a password file of the test's own): a wrong password keeps
        // the old database, the right one replaces it.
        // The test command installs libpam-wrapper; without it this part must fail, not pass unseen.
        let matrix = try #require(PAMTestModules.matrix, "needs libpam-wrapper (pam_matrix.so)")
        let passwords = try directory.write("alice:secret:download-admin\n", to: "pam/passdb")
        _ = try directory.write(
            "auth required \(matrix) passdb=\(passwords)\naccount required \(matrix) passdb=\(passwords)\n",
            to: "pam/download-admin")
        let login = [
            "--pam-service", "download-admin", "--pam-user", "alice", "--pam-directory", directory.path(of: "pam"),
            "--password-stdin",
        ]
        let wrong = try run(server, into: destination, login, input: "guess\n")
        #expect(wrong.status == 1)
        #expect(try String(contentsOfFile: destination, encoding: .utf8) == "old database")
        let right = try run(server, into: destination, login, input: "secret\n")
        #expect(right.status == 0, "\(right.standardOutput)\(right.standardError)")
        #expect(try SQLiteDatabase(path: destination).rows("SELECT name FROM catalog") == ["new"])
        #expect(try leftovers(directory, besides: ["catalog.sqlite"]).isEmpty)
    }

    @Test("Ctrl-C during the download cancels cleanly: exit 130, nothing partial left")
    func interrupt() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.directory("target")
        let published = try Self.publish(rows: ["alpha"], in: directory)
        let server = try HTTPTestServer(["/v1/metadata.json": [.ok(published.metadata)], "/db.sqlite.gz": [.stall]])
        defer { server.stop() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: builtProduct("download-workflow"))
        process.arguments = [
            "--server", "http://127.0.0.1:\(server.port)", "--into", directory.path(of: "target/catalog.sqlite"),
        ]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        server.waitForStall()
        // The staging directory exists while the download is in flight...
        #expect(try !leftovers(directory, besides: []).isEmpty)
        process.interrupt()
        process.waitUntilExit()
        #expect(process.terminationStatus == 130)
        // ...and is gone once the cancelled workflow finished.
        #expect(try leftovers(directory, besides: []).isEmpty)
    }

    @Test("on a terminal the download draws its progress bar, and the body goes to the staging file as it arrives")
    func progressOnTerminal() async throws {
        let directory = try TemporaryDirectory()
        _ = try directory.directory("target")
        // Enough rows that the compressed body spans many of libcurl's 16 KiB deliveries.
        let published = try Self.publish(rows: (0..<4000).map { _ in UUID().uuidString }, in: directory)
        let total = published.compressed.count
        let half = total / 2
        let server = try HTTPTestServer([
            "/v1/metadata.json": [.ok(published.metadata)],
            "/db.sqlite.gz": [.okInParts(published.compressed, pauseAfter: half)],
        ])
        defer { server.stop() }
        let terminal = try PseudoTerminal()
        let device = try terminal.openDevice()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: builtProduct("download-workflow"))
        process.arguments = [
            "--server", "http://127.0.0.1:\(server.port)", "--into", directory.path(of: "target/catalog.sqlite"),
        ]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = device
        process.standardError = device
        try process.run()
        try device.close()

        // The bar reaches the percent of the first half while the rest is held back...
        let percent = Int(Double(half) / Double(total) * 100)
        let firstHalf = await terminal.read { $0.contains("] \(percent < 10 ? "  " : " ")\(percent)%") }
        #expect(firstHalf.contains("of \(TerminalProgressBar.bytes(Int64(total)))  db.sqlite.gz"), "\(firstHalf)")
        // ...and what it reported is already in the staging file: the body is streamed, not held.
        let staged = try leftovers(directory, besides: [])
        #expect(staged.count == 1)
        let file = directory.path(of: "target/\(staged.first ?? "")/download.gz")
        let size = try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int ?? 0
        #expect(size >= percent * total / 100 && size <= half, "\(size) bytes staged of \(total)")

        server.resume()
        let rest = await terminal.readToEnd()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(firstHalf)\(rest)")
        let shown = firstHalf + rest
        #expect(shown.contains("] 100%  \(TerminalProgressBar.bytes(Int64(total))) of"), "\(shown)")
        // Redrawn in place: a carriage return per step, and at least the half and the whole.
        #expect(shown.filter { $0 == "\r" }.count >= 2)
        #expect(rest.contains("ok: "))
    }
}
