import Foundation
import Synchronization
import SystemPackage
import TestSupport
import Testing

@testable import LinuxBackends

/// Messages as sd-bus writes and reads them, through a dbus-daemon of the test's own run as
/// this user (no root, no system bus): every kind of value written into a call comes back from
/// the other end as it was written, errors and refusals arrive by their names, and what cannot
/// be written is refused before anything is sent.
@Suite(.enabled(if: PrivateBus.isAvailable, "needs /usr/bin/dbus-daemon"), .timeLimit(.minutes(2)))
struct DBusMessageTests {
    /// Every kind of value the package writes, nested as polkit's calls nest them.
    static let everyKind: [DBusValue] = [
        .byte(0xFF), .boolean(true), .boolean(false), .int16(.min), .uint16(.max), .int32(-7), .uint32(.max),
        .int64(.min), .uint64(.max), .double(-0.25), .string(""), .string("grüße, \u{1F512}"),
        .objectPath("/org/freedesktop/PolicyKit1/Authority"), .signature("a{sv}"),
        .variant(.variant(.int32(1))),
        .array(element: "s", []), .array(element: "i", [.int32(1), .int32(2)]),
        .structure([.string("unix-process"), .variantDictionary(["pid": .uint32(42), "start-time": .uint64(7)])]),
        .stringDictionary(["polkit.message": "restart the web server", "action": "restart-web"]),
    ]

    @Test("every kind of value written into a call is read back by the other end as it was written, and echoed")
    func roundTrip() async throws {
        let bus = try await PrivateBus()
        let received = try await bus.withEchoService { client, service in
            try client.call(
                client.methodCall(
                    destination: service, path: PrivateBus.echoPath, interface: PrivateBus.echoInterface,
                    member: "Echo", Self.everyKind),
                timeout: .seconds(20))
        }
        #expect(received.reply == Self.everyKind)
        #expect(received.served == [Self.everyKind], "the service read the call's body as written")
        #expect(received.sender?.hasPrefix(":") == true, "the daemon stamps the caller's unique name")
    }

    @Test("an error reply arrives by its name and message; an unknown member is answered by sd-bus as unknown")
    func errors() async throws {
        let bus = try await PrivateBus()
        let failures = try await bus.withEchoService { client, service in
            var failures: [DBusError] = []
            for member in ["Fail", "NoSuchMember"] {
                do throws(DBusError) {
                    _ = try client.call(
                        client.methodCall(
                            destination: service, path: PrivateBus.echoPath, interface: PrivateBus.echoInterface,
                            member: member, [.string("why")]),
                        timeout: .seconds(20))
                } catch {
                    failures.append(error)
                }
            }
            return failures
        }.reply
        #expect(failures.map(\.name) == ["org.example.Error.Refused", "org.freedesktop.DBus.Error.UnknownMethod"])
        #expect(failures.first?.message == "refused: why")
    }

    @Test("the bus daemon's own replies are read with their types: our uid, a list of names")
    func daemonReplies() async throws {
        let bus = try await PrivateBus()
        let replies = try await bus.withEchoService { client, service in
            let daemon = (destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus")
            let user = try client.call(
                client.methodCall(
                    destination: daemon.destination, path: daemon.path, interface: "org.freedesktop.DBus",
                    member: "GetConnectionUnixUser", [.string(service)]),
                timeout: .seconds(20))
            let names = try client.call(
                client.methodCall(
                    destination: daemon.destination, path: daemon.path, interface: "org.freedesktop.DBus",
                    member: "ListNames", []),
                timeout: .seconds(20))
            return (user, names)
        }.reply
        #expect(replies.0 == [.uint32(getuid())])
        guard case .array(element: "s", let names)? = replies.1.first else {
            Issue.record("ListNames did not answer an array of strings: \(replies.1)")
            return
        }
        #expect(names.contains(.string(PrivateBus.echoName)))
    }

    @Test(
        "what D-Bus cannot carry is refused while the call is built: a NUL in a string, a bad object path or signature, a descriptor"
    )
    func refusals() async throws {
        let bus = try await PrivateBus()
        let refused = try await offSharedThreads {
            let client = try DBusConnection(untrustedBusAt: bus.address, library: PrivateBus.library())
            var refused: [String] = []
            let values: [(String, DBusValue)] = [
                ("NUL", .string("a\u{0}b")), ("path", .objectPath("not/a/path")), ("signature", .signature("a{")),
                ("descriptor", .unixFD), ("nested NUL", .stringDictionary(["key": "x\u{0}"])),
            ]
            for (label, value) in values {
                do throws(DBusError) {
                    _ = try client.methodCall(
                        destination: PrivateBus.echoName, path: PrivateBus.echoPath,
                        interface: PrivateBus.echoInterface, member: "Echo", [value])
                } catch {
                    refused.append(label)
                }
            }
            return refused
        }
        #expect(refused == ["NUL", "path", "signature", "descriptor", "nested NUL"])
    }
}

/// A dbus-daemon of this test's own, on a socket in a temporary directory, run as this user.
final class PrivateBus: Sendable {
    static let echoName = "org.example.Echo"
    static let echoPath = "/org/example/Echo"
    static let echoInterface = "org.example.Echo"

    static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-daemon") }

    let address: String
    private let directory: TemporaryDirectory
    private let daemon: DaemonProcess

    init() async throws {
        directory = try TemporaryDirectory(prefix: "dbus-message")
        let socket = directory.path + "/bus"
        let configuration = try directory.write(
            """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>unix:path=\(socket)</listen>
              <auth>EXTERNAL</auth>
              <policy context="default">
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
            </busconfig>
            """, to: "bus.conf")
        daemon = try await DaemonProcess.dbusDaemon(configuration: configuration)
        address = "unix:path=" + socket
    }

    deinit { daemon.stop() }

    static func library() throws -> SystemdBusLibrary {
        try SystemdBusLibrary.load().get()
    }

    /// Runs `body` with a client connection while a service on its own thread owns
    /// ``echoName`` and answers on ``echoPath``: `Echo` replies with the call's values, `Fail`
    /// with an error naming its first string, anything else is left to sd-bus. Returns what
    /// `body` returned, the bodies the service read and the last caller's unique name.
    func withEchoService<T: Sendable>(
        _ body: @escaping @Sendable (DBusConnection, String) throws -> T
    ) async throws -> (reply: T, served: [[DBusValue]], sender: String?) {
        let record = Mutex<(served: [[DBusValue]], sender: String?, failure: String?)>(([], nil, nil))
        let ready = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        let (stopReader, stopWriter) = try FileDescriptor.pipe()
        let address = self.address
        let service = Thread {
            defer { finished.signal() }
            do {
                let connection = try DBusConnection(untrustedBusAt: address, library: Self.library())
                try connection.exportObject(path: Self.echoPath) { call in
                    guard let member = call.member, member == "Echo" || member == "Fail" else { return false }
                    do throws(DBusError) {
                        let values = try call.readAll()
                        record.withLock {
                            $0.served.append(values)
                            $0.sender = call.sender
                        }
                        if member == "Echo" {
                            try connection.reply(to: call, values)
                        } else {
                            let why = values.first?.stringValue ?? ""
                            try connection.replyError(
                                to: call, name: "org.example.Error.Refused", message: "refused: \(why)")
                        }
                    } catch {
                        record.withLock { $0.failure = "\(error)" }
                    }
                    return true
                }
                let owned = try connection.call(
                    connection.methodCall(
                        destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                        interface: "org.freedesktop.DBus", member: "RequestName", [.string(Self.echoName), .uint32(0)]),
                    timeout: .seconds(20))
                // 1: DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER.
                guard owned == [.uint32(1)] else { throw BusFixtureError("RequestName answered \(owned)") }
                ready.signal()
                var stopped = false
                try connection.run(until: { stopped }, wake: stopReader) { stopped = true }
            } catch {
                record.withLock { $0.failure = "\(error)" }
                ready.signal()
            }
        }
        service.start()
        let reply = try await offSharedThreads { () throws -> T in
            ready.wait()
            // The service's loop polls the pipe: it is closed only once the loop has ended.
            defer {
                _ = try? stopWriter.writeAll([UInt8(1)])
                finished.wait()
                try? stopWriter.close()
                try? stopReader.close()
            }
            if let failure = record.withLock({ $0.failure }) { throw BusFixtureError("the service failed: \(failure)") }
            let client = try DBusConnection(untrustedBusAt: address, library: Self.library())
            return try body(client, Self.echoName)
        }
        let (served, sender, failure) = record.withLock { ($0.served, $0.sender, $0.failure) }
        if let failure { throw BusFixtureError("the service failed: \(failure)") }
        return (reply, served, sender)
    }
}

struct BusFixtureError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
