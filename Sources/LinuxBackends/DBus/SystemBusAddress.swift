import Glibc

/// The system bus's address as this package accepts it: one `unix:path=` address, from
/// `DBUS_SYSTEM_BUS_ADDRESS` or the standard socket.
///
/// sd-bus would honour any transport the variable names, including `unixexec:`, which starts a
/// program of the environment's choosing and speaks to it as the bus (its peer is then this
/// process's own uid), and `tcp:`, whose peer cannot be checked at all. Only a socket in the file
/// system has a peer whose uid the kernel vouches for, so anything else is refused with the reason.
struct SystemBusAddress: Equatable {
    /// The socket's path.
    let path: String

    /// Where the system bus listens when the environment names nothing.
    static let standardPath = "/run/dbus/system_bus_socket"

    /// The address from `DBUS_SYSTEM_BUS_ADDRESS`, or the standard socket when it is unset or empty.
    static func fromEnvironment() throws(DBusError) -> SystemBusAddress {
        guard let pointer = getenv("DBUS_SYSTEM_BUS_ADDRESS"), pointer.pointee != 0 else {
            return SystemBusAddress(path: standardPath)
        }
        return try SystemBusAddress(parsing: String(cString: pointer))
    }

    init(path: String) {
        self.path = path
    }

    /// Parses a D-Bus address (the D-Bus specification's "Server Addresses"): `transport:key=value,...`,
    /// several separated by `;`, values with bytes escaped as `%XX`.
    init(parsing text: String) throws(DBusError) {
        func refuse(_ why: String) -> DBusError {
            DBusError(
                Self.unacceptableAddress,
                "DBUS_SYSTEM_BUS_ADDRESS \"\(text)\" is not used: \(why); only a single"
                    + " unix:path= address is accepted, whose peer the kernel identifies")
        }
        let addresses = text.split(separator: ";", omittingEmptySubsequences: true)
        guard addresses.count == 1, let address = addresses.first else {
            throw refuse(addresses.isEmpty ? "it names no address" : "it names \(addresses.count) addresses")
        }
        guard let colon = address.firstIndex(of: ":") else { throw refuse("it has no transport") }
        let transport = address[..<colon]
        guard transport == "unix" else { throw refuse("the transport is \(transport):") }
        var path: String?
        for pair in address[address.index(after: colon)...].split(separator: ",", omittingEmptySubsequences: false) {
            guard let equals = pair.firstIndex(of: "=") else { throw refuse("\"\(pair)\" is not key=value") }
            let key = pair[..<equals]
            guard let value = Self.unescaped(pair[pair.index(after: equals)...]) else {
                throw refuse("the value of \(key) is not escaped as D-Bus requires")
            }
            switch key {
            case "path":
                guard path == nil else { throw refuse("it names path twice") }
                path = value
            case "guid":
                guard value.utf8.count == 32,
                    value.utf8.allSatisfy({ $0 < 128 && Character(Unicode.Scalar($0)).isHexDigit })
                else { throw refuse("its guid is not 32 hexadecimal digits") }
            default:
                throw refuse("unix:\(key)= is not a socket path")
            }
        }
        guard let path, path.hasPrefix("/"), !path.utf8.contains(0) else {
            throw refuse("it names no absolute socket path")
        }
        self.path = path
    }

    /// The address as sd-bus is given it: the path with every byte outside D-Bus's
    /// optionally-escaped set written `%XX`.
    var address: String {
        var escaped = "unix:path="
        for byte in path.utf8 {
            if Self.plain.contains(byte) {
                escaped.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                escaped += "%" + String(byte >> 4, radix: 16) + String(byte & 0xF, radix: 16)
            }
        }
        return escaped
    }

    /// The error name for an address this package will not connect to.
    static let unacceptableAddress = "local.UnacceptableBusAddress"

    private static let plain = Set("-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_/.\\*".utf8)

    private static func unescaped(_ value: Substring) -> String? {
        var bytes: [UInt8] = []
        var iterator = value.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                guard plain.contains(byte) else { return nil }
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                return nil
            }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
