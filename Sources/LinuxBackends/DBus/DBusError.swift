import Glibc

/// A D-Bus failure: an error reply (named as D-Bus names them) or a local failure (no library,
/// no bus, a timeout), with a message for people.
struct DBusError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The D-Bus error name, such as `org.freedesktop.DBus.Error.ServiceUnknown`, or one of the
    /// local names below.
    let name: String
    let message: String

    init(_ name: String, _ message: String) {
        self.name = name
        self.message = message
    }

    /// From a negative errno that sd-bus returned.
    init(errno code: Int32, _ doing: String) {
        let text = String(cString: strerror(-code))
        let name = -code == ETIMEDOUT ? Self.timedOut : Self.local
        self.init(name, "\(doing): \(text)")
    }

    var description: String { message.isEmpty ? name : message }

    /// libsystemd could not be loaded.
    static let noLibrary = "local.NoLibrary"
    /// No system bus to connect to.
    static let noBus = "local.NoBus"
    /// A local failure: a message that could not be built or sent.
    static let local = "local.Failed"
    /// No reply in time.
    static let timedOut = "org.freedesktop.DBus.Error.Timeout"
    /// The reply had other types than expected.
    static let invalidReply = "local.InvalidReply"

    /// Whether the error says the service is not on the bus (not running, or not activatable).
    var meansServiceAbsent: Bool {
        [
            "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner",
            "org.freedesktop.DBus.Error.NoReply", "org.freedesktop.DBus.Error.Disconnected", Self.timedOut,
        ].contains(name) || name.hasPrefix("org.freedesktop.DBus.Error.Spawn.")
    }
}
