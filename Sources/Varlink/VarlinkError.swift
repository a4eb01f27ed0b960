/// A varlink error reply: its fully qualified name and its parameters.
public struct VarlinkError: Error, Sendable, CustomStringConvertible {
    /// The error's fully qualified name, such as `org.varlink.service.InvalidParameter`.
    public var name: String
    /// The error's parameters (an object).
    public var parameters: [(key: String, value: VarlinkValue)]

    /// The parameter `name`, or nil.
    public subscript(parameter name: String) -> VarlinkValue? {
        parameters.first { $0.key == name }?.value
    }

    /// An error named `name` with `parameters`.
    public init(_ name: String, _ parameters: [(key: String, value: VarlinkValue)] = []) {
        self.name = name
        self.parameters = parameters
    }

    /// The error as a whole reply message, NUL included: what a service sends in place of a
    /// reply (also before any call, to refuse a connection).
    public var replyMessage: [UInt8] {
        VarlinkValue.object([("error", .string(name)), ("parameters", .object(parameters))]).message()
    }

    public var description: String {
        parameters.isEmpty ? name : "\(name) \(VarlinkValue.object(parameters).json)"
    }

    /// The interface the call named is not served here.
    public static func interfaceNotFound(_ interface: String) -> VarlinkError {
        VarlinkError("org.varlink.service.InterfaceNotFound", [("interface", .string(interface))])
    }

    /// The interface has no such method.
    public static func methodNotFound(_ method: String) -> VarlinkError {
        VarlinkError("org.varlink.service.MethodNotFound", [("method", .string(method))])
    }

    /// A parameter is missing, of the wrong type, or not allowed.
    public static func invalidParameter(_ parameter: String) -> VarlinkError {
        VarlinkError("org.varlink.service.InvalidParameter", [("parameter", .string(parameter))])
    }

    /// The caller may not make this call.
    public static let permissionDenied = VarlinkError("org.varlink.service.PermissionDenied")

    /// The method only streams replies: call it with `more`.
    public static let expectedMore = VarlinkError("org.varlink.service.ExpectedMore")
}
