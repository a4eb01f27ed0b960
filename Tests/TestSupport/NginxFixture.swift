import Foundation
import Glibc

/// A real HTTPS server for flag documents: Debian's nginx (nginx-light) on 127.0.0.1, serving the
/// files under ``documents`` with its own ETags (modification time and size) and 304s, a
/// certificate of its own (``certificate``, which clients must be given), and:
/// - `/private/...` only with `Authorization: Bearer <bearerToken>` (401 otherwise);
/// - `/yaml/...` served as `application/yaml` whatever the name;
/// - every path answered 500 while a file `fail` exists in the fixture's directory (``failing``).
///
/// nginx runs in a PID namespace of its own: its first process holds it, so stopping the fixture
/// ends every nginx process whatever happens to the test. ``stop()`` and ``start()`` take the
/// server away and bring it back on the same port with the same documents.
public final class NginxFixture: @unchecked Sendable {
    public static let nginx = "/usr/sbin/nginx"

    public static var isAvailable: Bool {
        FileManager.default.isExecutableFile(atPath: nginx) && SelfSignedCertificate.isAvailable && getuid() == 0
    }

    public let directory: TemporaryDirectory
    public let certificate: SelfSignedCertificate
    public let bearerToken: String
    public private(set) var port: Int = 0
    private var daemon: DaemonProcess?

    /// Where the served files live.
    public var documents: String { directory.path(of: "www") }

    /// Starts nginx on a free port.
    public init(bearerToken: String = "test-token-\(UInt32.random(in: 0...UInt32.max))") throws {
        directory = try TemporaryDirectory(prefix: "nginx")
        certificate = try SelfSignedCertificate(in: directory, name: "nginx")
        self.bearerToken = bearerToken
        for name in ["www", "www/private", "www/yaml", "temp"] { try directory.directory(name) }
        // A port that was free a moment ago; another process taking it in between is retried.
        var lastError: (any Error)?
        for _ in 0..<5 {
            guard let free = LoopbackListener.freePort() else { throw FixtureError("no free port on 127.0.0.1") }
            port = free
            do {
                try start()
                return
            } catch {
                lastError = error
            }
        }
        throw lastError ?? FixtureError("nginx did not start")
    }

    deinit { daemon?.stopNamespace() }

    /// The URL of `path` (relative, without a leading slash).
    public func url(_ path: String) -> String { "https://127.0.0.1:\(port)/\(path)" }

    /// Writes `text` as the served file `path`.
    public func serve(_ path: String, _ text: String) throws {
        try directory.write(text, to: "www/" + path)
    }

    /// While true, every request is answered 500.
    public var failing: Bool {
        get { FileManager.default.fileExists(atPath: directory.path(of: "fail")) }
        set {
            if newValue {
                _ = try? directory.write("", to: "fail")
            } else {
                try? FileManager.default.removeItem(atPath: directory.path(of: "fail"))
            }
        }
    }

    /// The status codes of the requests served so far, oldest first.
    public var statuses: [Int] {
        let log = (try? String(contentsOfFile: directory.path(of: "access.log"), encoding: .utf8)) ?? ""
        return log.split(separator: "\n").compactMap { Int($0.split(separator: " ").first ?? "") }
    }

    /// The `Authorization` headers received so far ("-" for none), oldest first.
    public var authorizations: [String] {
        let log = (try? String(contentsOfFile: directory.path(of: "access.log"), encoding: .utf8)) ?? ""
        return log.split(separator: "\n").map { line in
            String(line.split(separator: " ", maxSplits: 1).dropFirst().first ?? "")
        }
    }

    /// Starts nginx (again) on ``port``; returns once it listens: nginx binds before it detaches,
    /// and the holder says `ready` only after nginx has returned.
    public func start() throws {
        try directory.write(configuration(), to: "nginx.conf")
        let setup = """
            \(Self.nginx) -c \(directory.path(of: "nginx.conf")) -e \(directory.path(of: "error.log")) || exit 1
            echo ready
            exec sleep infinity
            """
        let daemon = try DaemonProcess(
            ["/usr/bin/unshare", "--pid", "--fork", "--kill-child", "/bin/sh", "-c", setup],
            environment: ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin"])
        var output: [String] = []
        while let line = daemon.readLineBlocking() {
            if line == "ready" {
                self.daemon = daemon
                return
            }
            output.append(line)
        }
        daemon.stop()
        let log = (try? String(contentsOfFile: directory.path(of: "error.log"), encoding: .utf8)) ?? ""
        throw FixtureError("nginx did not start: \(output.joined(separator: "\n")) \(log)")
    }

    /// Stops nginx: connections are refused until ``start()``.
    public func stop() {
        daemon?.stopNamespace()
        daemon = nil
    }

    private func configuration() -> String {
        let root = directory.path
        return """
            worker_processes 1;
            pid \(root)/nginx.pid;
            error_log \(root)/error.log;
            events { worker_connections 64; }
            http {
                log_format statuses '$status $http_authorization';
                access_log \(root)/access.log statuses;
                client_body_temp_path \(root)/temp/body;
                proxy_temp_path \(root)/temp/proxy;
                fastcgi_temp_path \(root)/temp/fastcgi;
                uwsgi_temp_path \(root)/temp/uwsgi;
                scgi_temp_path \(root)/temp/scgi;
                types { application/json json; application/yaml yaml yml; }
                default_type application/octet-stream;
                server {
                    listen 127.0.0.1:\(port) ssl;
                    ssl_certificate \(certificate.certificatePath);
                    ssl_certificate_key \(certificate.keyPath);
                    root \(root)/www;
                    if (-f \(root)/fail) { return 500; }
                    location /private/ {
                        if ($http_authorization != "Bearer \(bearerToken)") { return 401; }
                    }
                    location /yaml/ { default_type application/yaml; types { } }
                }
            }

            """
    }
}
