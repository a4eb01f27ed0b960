import Foundation

/// A PAM service directory of the test's own, for `pam_start_confdir`: service files naming
/// test modules by absolute path, and a pam_matrix password file. No root, no real accounts.
public final class PAMServiceDirectory {
    public let path: String
    public let passwordFile: String

    public static var isAvailable: Bool { PAMTestModules.matrix != nil && PAMTestModules.stockDirectory != nil }

    /// Creates the directory with `passwords` as `user:password:service` lines.
    public init(passwords: [String]) throws {
        // In the test run's directory under /tmp, which every user can enter, whatever TMPDIR says.
        path = TestRunDirectory.path + "/pam-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        passwordFile = path + "/passdb"
        try (passwords.joined(separator: "\n") + "\n").write(toFile: passwordFile, atomically: false, encoding: .utf8)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// A service authenticating and checking accounts with pam_matrix.
    public func matrixService(_ name: String, extraAuth: [String] = [], account: [String]? = nil) throws {
        let matrix = PAMTestModules.matrix!
        let lines =
            extraAuth + ["auth required \(matrix) passdb=\(passwordFile)"]
            + (account ?? ["account required \(matrix) passdb=\(passwordFile)"])
        try service(name, lines)
    }

    /// A service with the given lines; `MODULES/` stands for the stock module directory.
    public func service(_ name: String, _ lines: [String]) throws {
        let text =
            lines.map { $0.replacingOccurrences(of: "MODULES/", with: PAMTestModules.stockDirectory! + "/") }.joined(
                separator: "\n") + "\n"
        try text.write(toFile: path + "/" + name, atomically: false, encoding: .utf8)
    }
}
