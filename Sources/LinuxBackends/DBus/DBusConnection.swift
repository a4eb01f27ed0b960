import CLinuxSupport
import CSystemdBus
import Glibc
import SystemPackage

/// A connection to the system bus through sd-bus (a `unix:path=` address from
/// `DBUS_SYSTEM_BUS_ADDRESS`, or the standard socket). sd-bus connections are not thread-safe: one is made, used and closed on one thread.
final class DBusConnection {
    let library: SystemdBusLibrary
    private let bus: OpaquePointer
    /// Callbacks registered with sd-bus; they live as long as the connection.
    private var handlers: [MessageHandler] = []
    private var slots: [OpaquePointer] = []
    /// Whether the bus was trusted and never failed or ran out of time; any other is closed without
    /// flushing, as flushing waits (up to sd-bus's 90 s) for a bus that may never answer.
    private var healthy = false

    /// Receives a message sd-bus hands to a callback; returns whether it was handled.
    final class MessageHandler {
        let library: SystemdBusLibrary
        let body: (DBusMessage) -> Bool
        init(_ library: SystemdBusLibrary, _ body: @escaping (DBusMessage) -> Bool) {
            self.library = library
            self.body = body
        }
    }

    /// Connects to the system bus at the one `unix:path=` address ``SystemBusAddress`` accepts,
    /// and trusts it only when root or the `messagebus` user runs it: `DBUS_SYSTEM_BUS_ADDRESS`
    /// could otherwise point a program at a bus where anyone answers as polkitd. sd-bus is given
    /// the checked address itself, never the environment.
    init(systemBusWith library: SystemdBusLibrary) throws(DBusError) {
        let address = try SystemBusAddress.fromEnvironment()
        self.library = library
        self.bus = try Self.connect(to: address.address, named: "the system bus at \(address.path)", library)
        let owner = clinux_socket_peer_uid(library.descriptor(bus))
        healthy = owner == 0 || owner == Self.messageBusUser
        guard healthy else {
            throw DBusError(
                Self.untrustedBus,
                "the system bus at \(address.path) is run by uid \(owner), not by root or messagebus, so its answers"
                    + " are not trusted")
        }
    }

    /// Connects to the bus at `address`, whoever runs it: for a bus whose answers decide
    /// nothing (a test's own bus, where messages are written and read back).
    init(untrustedBusAt address: String, library: SystemdBusLibrary) throws(DBusError) {
        self.library = library
        self.bus = try Self.connect(to: address, named: "the bus at \(address)", library)
        healthy = true
    }

    private static func connect(to address: String, named name: String, _ library: SystemdBusLibrary)
        throws(DBusError) -> OpaquePointer
    {
        var bus: OpaquePointer?
        var code = library.newBus(&bus)
        guard code >= 0, let bus else {
            throw DBusError(DBusError.noBus, "cannot create a bus connection: \(String(cString: strerror(-code)))")
        }
        code = library.setAddress(bus, address)
        if code >= 0 { code = library.setBusClient(bus, 1) }
        if code >= 0 { code = library.start(bus) }
        guard code >= 0 else {
            _ = library.closeWithoutFlush(bus)
            throw DBusError(DBusError.noBus, "cannot connect to \(name): \(String(cString: strerror(-code)))")
        }
        return bus
    }

    /// The D-Bus daemon's own user on Debian and most distributions, or -1 when there is none.
    private static let messageBusUser: Int64 = {
        // A failed lookup trusts only root, as a missing user does.
        if case .found(let uid) = AccountDatabase.user(named: "messagebus") { return Int64(uid) }
        return -1
    }()

    /// The error name for a bus not run by a trusted user.
    static let untrustedBus = "local.UntrustedBus"

    deinit {
        for slot in slots { _ = library.releaseSlot(slot) }
        _ = healthy ? library.close(bus) : library.closeWithoutFlush(bus)
    }

    /// A method call with `arguments`, ready to send.
    func methodCall(
        destination: String, path: String, interface: String, member: String, _ arguments: [DBusValue]
    ) throws(DBusError) -> DBusMessage {
        var message: OpaquePointer?
        let code = library.newMethodCall(bus, &message, destination, path, interface, member)
        guard code >= 0, let message else { throw DBusError(errno: code, "cannot create a call of \(member)") }
        let call = DBusMessage(adopting: message, library: library)
        try call.append(arguments)
        return call
    }

    /// Sends `message` and waits for its reply, handling nothing else meanwhile. `timeout` bounds
    /// the whole exchange, connecting and authenticating included: sd-bus's own limits for those
    /// (90 s) would otherwise run before the call's.
    func call(_ message: DBusMessage, timeout: Duration) throws(DBusError) -> [DBusValue] {
        var outcome: Result<[DBusValue], DBusError>?
        try callAsync(message, timeout: timeout) { outcome = $0 }
        try run(until: { outcome != nil }, deadline: ContinuousClock.now + timeout)
        return try outcome!.get()
    }

    /// Sends `message`; `completion` runs inside ``run(until:wake:onWake:)`` when the reply arrives.
    func callAsync(
        _ message: DBusMessage, timeout: Duration, completion: @escaping (Result<[DBusValue], DBusError>) -> Void
    ) throws(DBusError) {
        let handler = MessageHandler(library) { reply in
            if let error = reply.error {
                completion(.failure(error))
            } else {
                do throws(DBusError) {
                    completion(.success(try reply.readAll()))
                } catch {
                    completion(.failure(error))
                }
            }
            return true
        }
        var slot: OpaquePointer?
        let code = library.callAsync(
            bus, &slot, message.pointer, Self.trampoline, Unmanaged.passUnretained(handler).toOpaque(),
            Self.microseconds(timeout))
        guard code >= 0, let slot else { throw DBusError(errno: code, "cannot send \(message.member ?? "a call")") }
        handlers.append(handler)
        slots.append(slot)
    }

    /// Sends `message` without waiting for a reply.
    func send(_ message: DBusMessage) throws(DBusError) {
        let code = library.send(bus, message.pointer, nil)
        if code < 0 { throw DBusError(errno: code, "cannot send \(message.member ?? "a message")") }
    }

    /// Receives the method calls made on `path` while ``run(until:wake:onWake:)`` runs; the
    /// handler replies (``reply(to:_:)``) and returns true, or returns false for sd-bus to
    /// answer that the method is unknown.
    func exportObject(path: String, handler: @escaping (DBusMessage) -> Bool) throws(DBusError) {
        let box = MessageHandler(library, handler)
        var slot: OpaquePointer?
        let code = library.addObject(bus, &slot, path, Self.trampoline, Unmanaged.passUnretained(box).toOpaque())
        guard code >= 0, let slot else { throw DBusError(errno: code, "cannot export \(path)") }
        handlers.append(box)
        slots.append(slot)
    }

    /// Replies to a received call with `values`.
    func reply(to call: DBusMessage, _ values: [DBusValue] = []) throws(DBusError) {
        var reply: OpaquePointer?
        let code = library.newMethodReturn(call.pointer, &reply)
        guard code >= 0, let reply else { throw DBusError(errno: code, "cannot reply to \(call.member ?? "a call")") }
        let message = DBusMessage(adopting: reply, library: library)
        try message.append(values)
        try send(message)
    }

    /// Replies to a received call with an error.
    func replyError(to call: DBusMessage, name: String, message text: String) throws(DBusError) {
        var reply: OpaquePointer?
        let code = name.withCString { name in
            text.withCString { text in
                var error = sd_bus_error(name: name, message: text, _need_free: 0)
                return library.newMethodError(call.pointer, &reply, &error)
            }
        }
        guard code >= 0, let reply else { throw DBusError(errno: code, "cannot reply to \(call.member ?? "a call")") }
        try send(DBusMessage(adopting: reply, library: library))
    }

    /// Dispatches replies and calls until `done` holds, or throws ``DBusError/timedOut`` once
    /// `deadline` passes. A byte written to `wake` (a pipe's read end; polled, not owned)
    /// interrupts the wait and runs `onWake`, so another thread can ask for a cancellation.
    func run(
        until done: () -> Bool, deadline: ContinuousClock.Instant? = nil, wake: FileDescriptor? = nil,
        onWake: () -> Void = {}
    ) throws(DBusError) {
        do throws(DBusError) {
            try dispatch(until: done, deadline: deadline, wake: wake, onWake: onWake)
        } catch {
            healthy = false
            throw error
        }
    }

    private func dispatch(
        until done: () -> Bool, deadline: ContinuousClock.Instant?, wake: FileDescriptor?, onWake: () -> Void
    ) throws(DBusError) {
        while !done() {
            let processed = library.process(bus, nil)
            if processed < 0 { throw DBusError(errno: processed, "the bus connection failed") }
            if processed > 0 { continue }
            if done() { return }
            var timeout = pollTimeout()
            if let deadline {
                let left = ContinuousClock.now.duration(to: deadline)
                guard left > .zero else {
                    throw DBusError(DBusError.timedOut, "no answer on the system bus within the time allowed")
                }
                let milliseconds = Int32(
                    clamping: left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1)
                timeout = timeout < 0 ? milliseconds : min(timeout, milliseconds)
            }
            let events = library.events(bus)
            if events < 0 { throw DBusError(errno: events, "the bus connection failed") }
            var descriptors = [
                pollfd(fd: library.descriptor(bus), events: Int16(events), revents: 0),
                pollfd(fd: wake?.rawValue ?? 0, events: Int16(POLLIN), revents: 0),
            ]
            let waited = poll(&descriptors, wake == nil ? 1 : 2, timeout)
            if waited < 0, errno != EINTR {
                throw DBusError(errno: -errno, "cannot wait for the bus")
            }
            if let wake, descriptors[1].revents != 0 {
                var byte: UInt8 = 0
                _ = read(wake.rawValue, &byte, 1)
                onWake()
            }
        }
    }

    /// Milliseconds until sd-bus's next timeout (a call's reply), or -1 for none.
    private func pollTimeout() -> Int32 {
        var deadline: UInt64 = 0
        guard library.timeout(bus, &deadline) >= 0, deadline != UInt64.max else { return -1 }
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let current = UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
        guard deadline > current else { return 0 }
        return Int32(min((deadline - current + 999) / 1000, UInt64(Int32.max)))
    }

    /// sd-bus's microseconds; a zero duration would mean sd-bus's default, so at least 1.
    static func microseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 1 }
        guard seconds < Int64(UInt64.max / 2_000_000) else { return UInt64.max }
        return max(1, UInt64(seconds) * 1_000_000 + UInt64(attoseconds / 1_000_000_000_000))
    }

    private static let trampoline: sd_bus_message_handler_t = { message, userdata, _ in
        guard let message, let userdata else { return 0 }
        let handler = Unmanaged<MessageHandler>.fromOpaque(userdata).takeUnretainedValue()
        return handler.body(DBusMessage(retaining: message, library: handler.library)) ? 1 : 0
    }
}
