import Foundation
import Glibc

/// The one directory under /tmp this test process makes, removed with everything in it when the
/// process exits: what a test does not clean up itself (a directory held by a static, a copy of
/// capctl, a test that failed half-way) is removed with it, so a run leaves /tmp as it found it.
/// Mode 0755, so a child run as another user (setpriv) can enter it.
public enum TestRunDirectory {
    /// `/tmp/capabilities-tests-PID`.
    public static let path: String = {
        let path = pathForThisProcess()
        mkdir(path, 0o755)
        chmod(path, 0o755)
        atexit { try? FileManager.default.removeItem(atPath: TestRunDirectory.pathForThisProcess()) }
        return path
    }()

    private static func pathForThisProcess() -> String { "/tmp/capabilities-tests-\(getpid())" }
}

/// A fresh directory in ``TestRunDirectory``, removed with everything in it when the value is released.
/// It is mode 0755 and so is everything made through it, so a child run as another user
/// (setpriv) can enter it, and the trusted-file checks accept it when root owns it.
public final class TemporaryDirectory: @unchecked Sendable {
    /// The directory's absolute path.
    public let path: String

    /// Creates `/tmp/capabilities-tests-PID/PREFIX-RANDOM`: twelve random letters and digits, not a
    /// UUID, because sockets live in these directories and dbus-daemon takes a socket path of at
    /// most 99 bytes.
    public init(prefix: String = "capabilities-test") throws {
        let characters = Array("abcdefghijklmnopqrstuvwxyz0123456789")
        var made: String?
        for _ in 0..<8 where made == nil {
            let name = String((0..<12).map { _ in characters.randomElement()! })
            let candidate = TestRunDirectory.path + "/\(prefix)-" + name
            if mkdir(candidate, 0o755) == 0 { made = candidate }
        }
        guard let made else { throw FixtureError("cannot make a directory in \(TestRunDirectory.path)") }
        path = made
        chmod(path, 0o755)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// The absolute path of `name` (already absolute paths are kept).
    public func path(of name: String) -> String {
        name.hasPrefix("/") ? name : path + "/" + name
    }

    /// Writes `text` to `name` in place (open, truncate, write, close), creating the
    /// directories above it, and returns its path.
    @discardableResult
    public func write(_ text: String, to name: String, mode: UInt32 = 0o644) throws -> String {
        let file = path(of: name)
        let parent = (file as NSString).deletingLastPathComponent
        if !FileManager.default.fileExists(atPath: parent) { _ = try directory(parent, mode: 0o755) }
        try text.write(toFile: file, atomically: false, encoding: .utf8)
        chmod(file, mode)
        return file
    }

    /// Writes `text` to a temporary name and renames it over `name`, as editors and config tools do.
    @discardableResult
    public func replace(_ name: String, with text: String) throws -> String {
        let file = path(of: name)
        let staging =
            (file as NSString).deletingLastPathComponent + "/." + (file as NSString).lastPathComponent + ".tmp"
        try text.write(toFile: staging, atomically: false, encoding: .utf8)
        guard rename(staging, file) == 0 else { throw CocoaError(.fileWriteUnknown) }
        return file
    }

    /// Creates a file with `mode` and returns its path.
    @discardableResult
    public func file(_ name: String, mode: UInt32, contents: String = "data\n") throws -> String {
        try write(contents, to: name, mode: mode)
    }

    /// Creates a directory (and those above it) with `mode` and returns its path.
    @discardableResult
    public func directory(_ name: String, mode: UInt32 = 0o755) throws -> String {
        let directory = path(of: name)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        chmod(directory, mode)
        return directory
    }
}
