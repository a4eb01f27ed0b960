/// A configuration file (a policy, a drop-in, a flag definition file) that cannot be used as
/// written, and where: the one error type of every reader in this project.
///
/// Printed as `file:line:column: message`, the way compilers report errors, so editors can
/// jump to it; `file: message` when there is no position (the file could not be read at all),
/// and the message alone for a request that names no file (an unknown gate on the command line).
public struct ConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, in words an administrator can act on.
    public var message: String
    /// Where, when the format gives a position.
    public var location: FileLocation?
    /// The file concerned; empty for a problem that is about no file.
    public var file: String

    /// Creates an error at `location`.
    public init(_ message: String, at location: FileLocation) {
        self.message = message
        self.location = location
        self.file = location.file
    }

    /// Creates an error about a whole file, or (with no file) about a request.
    public init(_ message: String, file: String = "") {
        self.message = message
        self.location = nil
        self.file = file
    }

    public var description: String {
        if let location { return "\(location): \(message)" }
        return file.isEmpty ? message : "\(file): \(message)"
    }
}
