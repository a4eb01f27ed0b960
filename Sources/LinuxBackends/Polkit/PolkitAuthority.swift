import Glibc

/// polkit's authority on the system bus (`org.freedesktop.PolicyKit1.Authority`): the calls
/// this package makes and the shapes of their answers.
///
/// Calls go to the unique name of the connection that owns `org.freedesktop.PolicyKit1`, once the
/// bus driver has said that connection runs as root or as polkitd's user: on a trusted bus any
/// client the bus policy lets own the name could otherwise answer as polkit, and a unique name
/// is never reused, so the owner cannot change between the check and the call.
struct PolkitAuthority {
    let connection: DBusConnection
    /// The verified owner's unique name (`:1.42`).
    let peer: String

    static let service = "org.freedesktop.PolicyKit1"
    static let path = "/org/freedesktop/PolicyKit1/Authority"
    static let interface = "org.freedesktop.PolicyKit1.Authority"

    /// `CheckAuthorization`'s flag that lets polkit ask the person through an authentication agent.
    static let allowUserInteraction: UInt32 = 1

    /// polkit's answer to `CheckAuthorization`: `(bba{ss})`.
    struct Answer: Sendable, Equatable {
        var isAuthorized: Bool
        /// Not authorized now, but would be after the person authenticates.
        var isChallenge: Bool
        var details: [String: String]

        /// The person dismissed the authentication dialog.
        var wasDismissed: Bool { details["polkit.dismissed"] != nil }
        /// The temporary authorization created by this check, if any.
        var temporaryAuthorization: String? { details["polkit.temporary_authorization_id"] }

        init(isAuthorized: Bool, isChallenge: Bool, details: [String: String]) {
            self.isAuthorized = isAuthorized
            self.isChallenge = isChallenge
            self.details = details
        }

        init(reply: [DBusValue]) throws(DBusError) {
            guard reply.count == 1, let members = reply[0].members, members.count == 3,
                let authorized = members[0].booleanValue, let challenge = members[1].booleanValue,
                let details = members[2].dictionary
            else {
                throw DBusError(DBusError.invalidReply, "polkit's CheckAuthorization reply is not (bba{ss})")
            }
            var texts: [String: String] = [:]
            for (key, value) in details { texts[key] = value.stringValue ?? "" }
            self.init(isAuthorized: authorized, isChallenge: challenge, details: texts)
        }
    }

    /// The authority on `connection`, once its owner is verified; the whole lookup takes at most `timeout`.
    init(on connection: DBusConnection, timeout: Duration = .seconds(25)) throws(DBusError) {
        self.connection = connection
        let deadline = ContinuousClock.now + timeout
        func driverCall(_ member: String, _ argument: String) throws(DBusError) -> [DBusValue] {
            let call = try connection.methodCall(
                destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                member: member, [.string(argument)])
            return try connection.call(call, timeout: max(.milliseconds(1), ContinuousClock.now.duration(to: deadline)))
        }
        var owner: [DBusValue]
        do throws(DBusError) {
            owner = try driverCall("GetNameOwner", Self.service)
        } catch {
            // polkitd is usually started by the bus on first use; a name nobody owns yet is activated.
            guard error.name == "org.freedesktop.DBus.Error.NameHasNoOwner" else { throw error }
            let start = try connection.methodCall(
                destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                member: "StartServiceByName", [.string(Self.service), .uint32(0)])
            _ = try connection.call(start, timeout: max(.milliseconds(1), ContinuousClock.now.duration(to: deadline)))
            owner = try driverCall("GetNameOwner", Self.service)
        }
        guard owner.count == 1, let unique = owner[0].stringValue, unique.hasPrefix(":") else {
            throw DBusError(DBusError.invalidReply, "the bus's GetNameOwner reply is not a unique name")
        }
        let user = try driverCall("GetConnectionUnixUser", unique)
        guard user.count == 1, let uid = user[0].unsignedValue else {
            throw DBusError(DBusError.invalidReply, "the bus's GetConnectionUnixUser reply is not a uid")
        }
        guard uid == 0 || uid == Self.polkitUser else {
            throw DBusError(
                Self.untrustedPeer,
                "\(Self.service) is owned by \(unique), which runs as uid \(uid), not as root or polkitd, so its"
                    + " answers are not trusted")
        }
        peer = unique
    }

    /// The error name for a polkit name owned by a connection of another user.
    static let untrustedPeer = "local.UntrustedPolkit"

    /// polkitd's own user (Debian's `polkitd`), or -1 when there is none.
    private static let polkitUser: UInt64 = {
        // A failed lookup trusts only root, as a missing user does.
        if case .found(let uid) = AccountDatabase.user(named: "polkitd") { return UInt64(uid) }
        return UInt64.max
    }()

    /// A method call to the verified authority.
    func methodCall(_ member: String, _ arguments: [DBusValue], interface: String = interface) throws(DBusError)
        -> DBusMessage
    {
        try connection.methodCall(destination: peer, path: Self.path, interface: interface, member: member, arguments)
    }

    func checkAuthorization(
        subject: DBusValue, action: String, details: [String: String], flags: UInt32, cancellationID: String
    ) throws(DBusError) -> DBusMessage {
        try methodCall(
            "CheckAuthorization",
            [subject, .string(action), .stringDictionary(details), .uint32(flags), .string(cancellationID)])
    }

    func cancelCheckAuthorization(cancellationID: String) throws(DBusError) -> DBusMessage {
        try methodCall("CancelCheckAuthorization", [.string(cancellationID)])
    }

    func revokeTemporaryAuthorization(id: String) throws(DBusError) {
        _ = try connection.call(
            try methodCall("RevokeTemporaryAuthorizationById", [.string(id)]), timeout: .seconds(25))
    }

    /// polkitd's name and version (`BackendName`, `BackendVersion` properties), or the reason it cannot be reached.
    func backend() throws(DBusError) -> (name: String, version: String) {
        func property(_ name: String) throws(DBusError) -> String {
            let call = try methodCall(
                "Get", [.string(Self.interface), .string(name)], interface: "org.freedesktop.DBus.Properties")
            let reply = try connection.call(call, timeout: .seconds(10))
            guard reply.count == 1, case .variant(let value) = reply[0], let text = value.stringValue else {
                throw DBusError(DBusError.invalidReply, "polkit's \(name) is not a string")
            }
            return text
        }
        return (try property("BackendName"), try property("BackendVersion"))
    }

    /// polkit's error names.
    static let cancelledError = "org.freedesktop.PolicyKit1.Error.Cancelled"
    static let notAuthorizedError = "org.freedesktop.PolicyKit1.Error.NotAuthorized"
    static let failedError = "org.freedesktop.PolicyKit1.Error.Failed"
}
