/// Where something is in a file: 1-based line and column.
///
/// ```swift
/// import ConfigurationFiles
///
/// let location = FileLocation(file: "/etc/myservice/policy.yaml", line: 12, column: 5)
/// print(location)  // /etc/myservice/policy.yaml:12:5
/// ```
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
