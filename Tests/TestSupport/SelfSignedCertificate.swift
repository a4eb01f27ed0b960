import Foundation

/// A certificate for 127.0.0.1 and localhost, signed by its own key (openssl), for test servers
/// that speak TLS: clients are given it as their only trusted authority.
public struct SelfSignedCertificate: Sendable {
    public let certificatePath: String
    public let keyPath: String

    public static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl") }

    /// Makes `NAME.crt` and `NAME.key` in `directory`.
    public init(in directory: TemporaryDirectory, name: String) throws {
        certificatePath = directory.path(of: name + ".crt")
        keyPath = directory.path(of: name + ".key")
        let made = try runProcess(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
                "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
                "-keyout", keyPath, "-out", certificatePath,
            ])
        guard made.status == 0 else { throw FixtureError("openssl req: \(made.standardError)") }
    }
}
