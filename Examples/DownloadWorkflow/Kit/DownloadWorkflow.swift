public import Capabilities
public import FeatureFlags
public import Foundation
import LinuxBackends
import LinuxPolicy
import Plumbing
public import ProcedureCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The seeds' download workflow, for real: fetch a metadata document, download the compressed
/// SQLite database it names, decompress it, verify it (SHA-256 and `PRAGMA integrity_check`) and
/// move it into place, as one group of procedures.
///
/// Gates: the server's host is reachable and the destination directory writable (the whole
/// group); replacing an existing database needs the administrator's login (the last step only,
/// asked last). The `new-format` flag picks the metadata of the new format. Network steps retry
/// with exponential back-off and jitter. Everything is staged beside the destination and removed
/// however the group ends, so a cancelled or failed run leaves no partial file.
public final class DownloadWorkflow: GroupProcedure, @unchecked Sendable {
    /// What the server describes.
    public struct Metadata: Codable, Sendable {
        /// The database's path on the server.
        public var database: String
        /// SHA-256 of the decompressed database, lowercase hexadecimal.
        public var sha256: String
    }

    /// An HTTP answer other than 200.
    public struct HTTPFailure: Error, CustomStringConvertible {
        public let url: URL
        public let status: Int
        public var description: String { "\(url.path): HTTP \(status)" }
    }

    /// A downloaded database that is not what the metadata promised.
    public struct VerificationFailure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The downloaded file and the checksum the metadata promised for it, decompressed.
    struct Staged: Sendable {
        let file: URL
        let sha256: String
    }

    /// Where the workflow stages its files, beside the destination (so the final move is a rename).
    public let stagingDirectory: URL
    /// The download step, whose ``Procedure/progress`` counts the bytes received of the
    /// announced length (the current attempt's, when it retries).
    public let downloadStep: Procedure
    /// The installed database, once the workflow succeeded.
    public var installedPath: String? { (install.output.flatMap { try? $0.get() }) }

    private let install: TransformProcedure<URL, String>

    /// - Parameters:
    ///   - server: The base URL, e.g. `http://127.0.0.1:8080`.
    ///   - destination: The database's final path.
    ///   - flags: Where `new-format` is read.
    ///   - administrator: The login needed to replace an existing database; replacing is refused without one.
    ///   - maxAttempts: Attempts per network step.
    ///   - report: Receives progress lines.
    public init(
        server: URL, destination: String, flags: FlagStore, administrator: (any CapabilityType)?, maxAttempts: Int = 4,
        report: @escaping @Sendable (String) -> Void
    ) throws {
        let destinationURL = URL(fileURLWithPath: destination)
        let directory = destinationURL.deletingLastPathComponent()
        // Unguessable and created only if absent, so nobody who can write the directory can plant
        // a link there for the download to follow.
        stagingDirectory = directory.appendingPathComponent(
            ".\(destinationURL.lastPathComponent).partial-\(UUID().uuidString)")
        let staging = stagingDirectory
        let wait = WaitStrategy.exponential(
            initial: .milliseconds(50), multiplier: 2, maximum: .seconds(2), jitter: true)
        let newFormat = flags.value("new-format", default: false)
        let metadataURL = server.appendingPathComponent(newFormat ? "v2/metadata.json" : "v1/metadata.json")

        let metadata = RetryProcedure<Metadata>(name: "fetch metadata", maxAttempts: maxAttempts, wait: wait) {
            attempt in
            AsyncProcedure(name: "fetch metadata, attempt \(attempt)") {
                report("fetching \(metadataURL.path) (attempt \(attempt))")
                return try JSONDecoder().decode(Metadata.self, from: try await Self.get(metadataURL))
            }
        }
        let download = RetryProcedure(
            name: "download", inputFrom: metadata, maxAttempts: maxAttempts, wait: wait
        ) { source, attempt in
            AsyncProcedure(name: "download, attempt \(attempt)") { progress in
                let url = server.appendingPathComponent(source.database)
                report("downloading \(url.path) (attempt \(attempt))")
                let file = staging.appendingPathComponent("download.gz")
                let size = try await downloadFile(
                    from: url, into: file, detail: url.lastPathComponent, progress: progress)
                report("downloaded \(size) bytes")
                return Staged(file: file, sha256: source.sha256)
            }
        }
        let decompress = download.then(name: "decompress") { compressed in
            report("decompressing")
            let database = staging.appendingPathComponent("database.sqlite")
            try Self.gunzip(compressed.file, into: database)
            return Staged(file: database, sha256: compressed.sha256)
        }
        let verify = decompress.then(name: "verify") { database in
            report("verifying")
            let actual = try Self.sha256(of: database.file)
            guard actual == database.sha256 else {
                throw VerificationFailure(description: "checksum \(actual) is not the expected \(database.sha256)")
            }
            if let problem = try SQLiteDatabase(path: database.file.path).integrityProblem() {
                throw VerificationFailure(description: "integrity check: \(problem)")
            }
            return database.file
        }
        let install = verify.then(name: "install") { database in
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: database.path)
            guard rename(database.path, destination) == 0 else {
                throw VerificationFailure(
                    description: "cannot move into \(destination): \(String(cString: strerror(errno)))")
            }
            report("installed \(destination)")
            return destination
        }
        // Replacing what is there needs the administrator, asked only once everything else held.
        if FileManager.default.fileExists(atPath: destination) {
            if let administrator {
                install.addCondition(AuthorizedFor(administrator))
            } else {
                install.addCondition(
                    BlockCondition(name: "replacing needs an administrator") { _ in
                        throw VerificationFailure(
                            description: "\(destination) exists and no administrator login is configured")
                    })
            }
        }
        self.install = install
        downloadStep = download
        super.init(
            name: "download workflow", children: [metadata, download, decompress, verify, install], workload: .blocking)

        if let host = server.host, let port = server.port {
            addCondition(AuthorizedFor(try HostReachability(host: host, port: port, timeout: .seconds(2))))
        }
        addCondition(AuthorizedFor(try FileAccess(directory.path, access: [.read, .write], kind: .directory)))
        addWillExecuteBlockObserver { _ in
            try? FileManager.default.createDirectory(
                at: staging, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        }
        // However the group ends, nothing staged is left behind.
        addDidFinishBlockObserver { _, _ in try? FileManager.default.removeItem(at: staging) }
    }

    /// SHA-256 of a file, read a megabyte at a time (the package's own, which also names policy revisions).
    static func sha256(of file: URL) throws -> String {
        let input = try FileHandle(forReadingFrom: file)
        defer { try? input.close() }
        var digest = SHA256()
        while let chunk = try input.read(upToCount: 1 << 20), !chunk.isEmpty { digest.update(chunk) }
        return digest.finalHex()
    }

    /// GET `url`; anything but 200 is an error (retried by the network steps).
    static func get(_ url: URL) async throws -> Data {
        let (data, response) = try await URLSession.shared.data(from: url)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard status == 200 else { throw HTTPFailure(url: url, status: status) }
        return data
    }

    /// `gzip -dc`: a subprocess that blocks its thread, which the group's blocking workload allows.
    static func gunzip(_ compressed: URL, into output: URL) throws {
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/gzip")
        process.arguments = ["-dc", compressed.path]
        process.standardOutput = try FileHandle(forWritingTo: output)
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw VerificationFailure(
                description: "gzip could not decompress the download (status \(process.terminationStatus))")
        }
    }
}
