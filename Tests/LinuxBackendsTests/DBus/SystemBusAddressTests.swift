import Testing

@testable import LinuxBackends

/// The system bus's address, parsed as the D-Bus specification writes addresses, and refused
/// unless it is one `unix:path=` socket: no root, no bus needed.
struct SystemBusAddressTests {
    @Test(
        "a single unix:path= address is taken, its escapes undone, a guid allowed",
        arguments: [
            ("unix:path=/run/dbus/system_bus_socket", "/run/dbus/system_bus_socket"),
            ("unix:path=/tmp/a%20b", "/tmp/a b"),
            ("unix:path=/tmp/%2fslash", "/tmp//slash"),
            ("unix:path=/run/bus,guid=0123456789abcdef0123456789ABCDEF", "/run/bus"),
            ("unix:guid=0123456789abcdef0123456789abcdef,path=/run/bus", "/run/bus"),
            ("unix:path=/run/bus;", "/run/bus"),
        ])
    func accepted(_ case: (String, String)) throws {
        #expect(try SystemBusAddress(parsing: `case`.0).path == `case`.1)
    }

    @Test(
        "anything else is refused with the reason: other transports, several addresses, no absolute path, bad escapes",
        arguments: [
            ("", "names no address"),
            (";", "names no address"),
            ("unix:path=/a;unix:path=/b", "names 2 addresses"),
            ("/run/dbus/system_bus_socket", "has no transport"),
            ("unixexec:path=/bin/sh", "transport is unixexec:"),
            ("tcp:host=127.0.0.1,port=1234", "transport is tcp:"),
            ("unix:abstract=bus", "unix:abstract= is not a socket path"),
            ("unix:tmpdir=/tmp", "unix:tmpdir= is not a socket path"),
            ("unix:path=relative/bus", "no absolute socket path"),
            ("unix:path=/a,path=/b", "names path twice"),
            ("unix:path", "is not key=value"),
            ("unix:path=/tmp/%zz", "not escaped as D-Bus requires"),
            ("unix:path=/tmp/%2", "not escaped as D-Bus requires"),
            ("unix:path=/tmp/a b", "not escaped as D-Bus requires"),
            ("unix:path=/tmp/%00nul", "no absolute socket path"),
            ("unix:path=/run/bus,guid=xyz", "guid is not 32 hexadecimal digits"),
            ("unix:", "\"\" is not key=value"),
        ])
    func refused(_ case: (String, String)) {
        do {
            let address = try SystemBusAddress(parsing: `case`.0)
            Issue.record("\(`case`.0) was taken: \(address.path)")
        } catch {
            #expect(error.name == SystemBusAddress.unacceptableAddress)
            #expect("\(error)".contains(`case`.1), "\(`case`.0): \(error)")
        }
    }

    @Test("the address sd-bus is given escapes every byte outside D-Bus's plain set, and reads back the same")
    func escaping() throws {
        let path = "/tmp/a b,c;d=é"
        let address = SystemBusAddress(path: path).address
        #expect(address == "unix:path=/tmp/a%20b%2cc%3bd%3d%c3%a9", "\(address)")
        #expect(try SystemBusAddress(parsing: address).path == path)
    }
}
