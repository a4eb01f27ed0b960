/// One connection to polkitd kept open for `CheckAuthorization` calls made one after another,
/// without interaction: how core-bench asks polkit at its best, beside capctld on a connection
/// of its own (PolkitAuthorization connects for each check, as a one-shot capability should).
package final class PolkitCheckConnection {
    private let connection: DBusConnection
    private let authority: PolkitAuthority
    private let subject: DBusValue

    /// Connects to the system bus (`DBUS_SYSTEM_BUS_ADDRESS` where set) and finds polkitd; every
    /// check is for this process.
    package init(library path: String = SystemdBusLibrary.defaultPath) throws {
        guard let library = SystemdBusLibrary.loaded(path) else {
            throw DBusError(DBusError.local, "\(path) cannot be loaded")
        }
        connection = try DBusConnection(systemBusWith: library)
        authority = try PolkitAuthority(on: connection)
        subject = try PolkitSubject.currentProcess()
    }

    /// Whether polkitd authorizes this process for `action` now.
    package func isAuthorized(_ action: String) throws -> Bool {
        let call = try authority.checkAuthorization(
            subject: subject, action: action, details: [:], flags: 0, cancellationID: "")
        return try PolkitAuthority.Answer(reply: try connection.call(call, timeout: .seconds(25))).isAuthorized
    }
}
