import FeatureFlags

/// A policy that cannot be used, and where the problem is: printed as `file:line:column: message`.
public struct PolicyError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, in words an administrator can act on.
    public var message: String
    /// Where, when there is a position.
    public var location: FileLocation?
    /// The file concerned (empty for a problem with no file, such as an unknown name on the command line).
    public var file: String

    /// An error at a position.
    public init(_ message: String, at location: FileLocation) {
        self.message = message
        self.location = location
        self.file = location.file
    }

    /// An error about a whole file, or (with no file) about a request.
    public init(_ message: String, file: String = "") {
        self.message = message
        self.location = nil
        self.file = file
    }

    init(_ error: FlagDefinitionError) {
        message = error.message
        location = error.location
        file = error.file
    }

    public var description: String {
        if let location { return "\(location): \(message)" }
        return file.isEmpty ? message : "\(file): \(message)"
    }
}

/// Every problem found while loading a policy (`capctl validate` prints them all).
public struct PolicyErrors: Error, Sendable, CustomStringConvertible {
    /// The problems, in file order.
    public var errors: [PolicyError]

    public var description: String { errors.map(\.description).joined(separator: "\n") }
}
