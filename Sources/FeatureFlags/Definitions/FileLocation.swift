/// Where something is in a file: 1-based line and column.
public struct FileLocation: Sendable, Hashable, CustomStringConvertible {
    /// The file's path, or a label such as `<inline>`.
    public var file: String
    /// The line, from 1.
    public var line: Int
    /// The column, from 1, counted in characters.
    public var column: Int

    /// Creates a location.
    public init(file: String, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }

    public var description: String { "\(file):\(line):\(column)" }
}

/// A flag definition file that cannot be used, and where the problem is.
///
/// Printed as `file:line:column: message`, the way compilers report errors, so editors can
/// jump to it.
public struct FlagDefinitionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, in words an administrator can act on.
    public var message: String
    /// Where, when the format gives a position.
    public var location: FileLocation?
    /// The file, when there is no position (it could not be read at all).
    public var file: String

    /// Creates an error at `location`.
    public init(_ message: String, at location: FileLocation) {
        self.message = message
        self.location = location
        self.file = location.file
    }

    /// Creates an error for a whole file.
    public init(_ message: String, file: String) {
        self.message = message
        self.location = nil
        self.file = file
    }

    public var description: String {
        "\(location.map(String.init(describing:)) ?? file): \(message)"
    }
}
