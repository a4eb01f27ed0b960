/// An interface a varlink service answers: its name, its description (the interface definition
/// clients read with `org.varlink.service.GetInterfaceDescription`), and a handler per method.
///
/// ```swift
/// import Varlink
///
/// let ping = VarlinkInterface(
///     name: "org.example.ping",
///     description: "interface org.example.ping\nmethod Ping(text: string) -> (text: string)\n",
///     methods: [
///         "Ping": { call, replies throws(VarlinkError) in
///             replies.reply([("text", .string(try call.string("text")))])
///         }
///     ])
/// _ = ping
/// ```
public struct VarlinkInterface: Sendable {
    /// Answers one call: replies through `replies`, or throws the error to reply with.
    public typealias Handler = @Sendable (VarlinkCall, VarlinkReplies) throws(VarlinkError) -> Void

    /// The interface's reverse-domain name.
    public let name: String
    /// Its interface definition, in varlink's interface definition language.
    public let description: String
    /// The handler of each method, by method name.
    public let methods: [String: Handler]

    /// An interface named `name`, described by `description`, answering `methods`.
    public init(name: String, description: String, methods: [String: Handler]) {
        self.name = name
        self.description = description
        self.methods = methods
    }
}

/// What a service says about itself (`org.varlink.service.GetInfo`).
///
/// ```swift
/// import Varlink
///
/// let info = VarlinkServiceInfo(vendor: "Example", product: "pingd", version: "1", url: "https://example.org/pingd")
/// _ = info
/// ```
public struct VarlinkServiceInfo: Sendable {
    /// Who makes it.
    public var vendor: String
    /// Its name.
    public var product: String
    /// Its version.
    public var version: String
    /// Where to read about it.
    public var url: String

    /// A service described by `vendor`, `product`, `version` and `url`.
    public init(vendor: String, product: String, version: String, url: String) {
        (self.vendor, self.product, self.version, self.url) = (vendor, product, version, url)
    }
}
