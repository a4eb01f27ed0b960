/// polkit's authority on the system bus (`org.freedesktop.PolicyKit1.Authority`): the calls
/// this package makes and the shapes of their answers.
enum PolkitAuthority {
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

    static func checkAuthorization(
        on connection: DBusConnection, subject: DBusValue, action: String, details: [String: String], flags: UInt32,
        cancellationID: String
    ) throws(DBusError) -> DBusMessage {
        try connection.methodCall(
            destination: service, path: path, interface: interface, member: "CheckAuthorization",
            [subject, .string(action), .stringDictionary(details), .uint32(flags), .string(cancellationID)])
    }

    static func cancelCheckAuthorization(on connection: DBusConnection, cancellationID: String) throws(DBusError)
        -> DBusMessage
    {
        try connection.methodCall(
            destination: service, path: path, interface: interface, member: "CancelCheckAuthorization",
            [.string(cancellationID)])
    }

    static func revokeTemporaryAuthorization(on connection: DBusConnection, id: String) throws(DBusError) {
        let call = try connection.methodCall(
            destination: service, path: path, interface: interface, member: "RevokeTemporaryAuthorizationById",
            [.string(id)])
        _ = try connection.call(call, timeout: .seconds(25))
    }

    /// polkitd's name and version (`BackendName`, `BackendVersion` properties), or the reason it cannot be reached.
    static func backend(on connection: DBusConnection) throws(DBusError) -> (name: String, version: String) {
        func property(_ name: String) throws(DBusError) -> String {
            let call = try connection.methodCall(
                destination: service, path: path, interface: "org.freedesktop.DBus.Properties", member: "Get",
                [.string(interface), .string(name)])
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
