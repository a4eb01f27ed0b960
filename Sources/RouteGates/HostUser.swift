/// An identity that is a user of this host, by name: what a route gate is decided for. Conform
/// your framework's identity to it (a JWT's subject, a session's user), or use ``HostUser``,
/// which the frameworks' PAM Basic authenticators log in.
///
/// ```swift
/// struct Account: HostUserIdentity {
///     let login: String
///     var hostUserName: String { login }
/// }
/// ```
public protocol HostUserIdentity: Sendable {
    /// The user's name in the host's user database (/etc/passwd, or the directory through sssd).
    var hostUserName: String { get }
}

/// A user of this host, as an HTTP Basic login through PAM authenticated them.
///
/// ```swift
/// let alice = HostUser(name: "alice")
/// print(alice.hostUserName)  // alice
/// ```
public struct HostUser: HostUserIdentity, Hashable {
    /// The user's name.
    public let name: String
    /// The user's name.
    public var hostUserName: String { name }

    /// The user called `name`.
    public init(name: String) { self.name = name }
}
