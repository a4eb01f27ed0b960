import CSystemdBus
import Glibc

/// An sd-bus message this package holds a reference to: a call being built, a reply, or a call
/// received by an exported object. Used on one thread, the connection's.
final class DBusMessage {
    let library: SystemdBusLibrary
    let pointer: OpaquePointer

    /// Takes over one reference to `pointer`.
    init(adopting pointer: OpaquePointer, library: SystemdBusLibrary) {
        self.library = library
        self.pointer = pointer
    }

    /// Adds a reference to a message sd-bus lends to a callback.
    convenience init(retaining pointer: OpaquePointer, library: SystemdBusLibrary) {
        _ = library.retainMessage(pointer)
        self.init(adopting: pointer, library: library)
    }

    deinit {
        _ = library.releaseMessage(pointer)
    }

    /// The member a received call names.
    var member: String? {
        library.messageMember(pointer).map { String(cString: $0) }
    }

    /// The unique name of the connection that sent a received message, as the bus stamps it.
    var sender: String? {
        library.messageSender(pointer).map { String(cString: $0) }
    }

    /// The error this message carries, if it is an error reply.
    var error: DBusError? {
        guard let error = library.messageError(pointer) else { return nil }
        let name = error.pointee.name.map { String(cString: $0) } ?? DBusError.local
        let message = error.pointee.message.map { String(cString: $0) } ?? ""
        return DBusError(name, message)
    }

    // MARK: Writing

    /// Appends `values` in order.
    func append(_ values: [DBusValue]) throws(DBusError) {
        for value in values { try append(value) }
    }

    func append(_ value: DBusValue) throws(DBusError) {
        switch value {
        case .byte(var byte): try appendBasic("y", &byte)
        case .boolean(let flag):
            var number: Int32 = flag ? 1 : 0
            try appendBasic("b", &number)
        case .int16(var number): try appendBasic("n", &number)
        case .uint16(var number): try appendBasic("q", &number)
        case .int32(var number): try appendBasic("i", &number)
        case .uint32(var number): try appendBasic("u", &number)
        case .int64(var number): try appendBasic("x", &number)
        case .uint64(var number): try appendBasic("t", &number)
        case .double(var number): try appendBasic("d", &number)
        case .string(let text): try appendText("s", text)
        case .objectPath(let text): try appendText("o", text)
        case .signature(let text): try appendText("g", text)
        case .unixFD: throw DBusError(DBusError.local, "sending file descriptors is not supported")
        case .array(let element, let elements):
            try container("a", element) { () throws(DBusError) in try append(elements) }
        case .structure(let members):
            try container("r", String(value.signature.dropFirst().dropLast())) { () throws(DBusError) in
                try append(members)
            }
        case .entry(let key, let item):
            try container("e", key.signature + item.signature) { () throws(DBusError) in try append([key, item]) }
        case .variant(let inner):
            try container("v", inner.signature) { () throws(DBusError) in try append(inner) }
        }
    }

    private func appendBasic<T>(_ type: Character, _ value: inout T) throws(DBusError) {
        let code = withUnsafePointer(to: &value) { library.appendBasic(pointer, CChar(type.asciiValue!), $0) }
        if code < 0 { throw DBusError(errno: code, "cannot add a value to a D-Bus message") }
    }

    /// D-Bus strings cannot hold NUL: refused rather than cut short at the first one.
    private func appendText(_ type: Character, _ text: String) throws(DBusError) {
        guard !text.utf8.contains(0) else {
            throw DBusError(DBusError.local, "a D-Bus string cannot contain a NUL character")
        }
        let code = text.withCString { library.appendBasic(pointer, CChar(type.asciiValue!), $0) }
        if code < 0 { throw DBusError(errno: code, "cannot add \"\(text)\" to a D-Bus message") }
    }

    private func container(
        _ type: Character, _ contents: String, _ body: () throws(DBusError) -> Void
    ) throws(DBusError) {
        let opened = contents.withCString { library.openContainer(pointer, CChar(type.asciiValue!), $0) }
        if opened < 0 { throw DBusError(errno: opened, "cannot open a D-Bus container \(type)\(contents)") }
        try body()
        let closed = library.closeContainer(pointer)
        if closed < 0 { throw DBusError(errno: closed, "cannot close a D-Bus container \(type)\(contents)") }
    }

    // MARK: Reading

    /// Every value in the message body, from the current position to the end.
    func readAll() throws(DBusError) -> [DBusValue] {
        var values: [DBusValue] = []
        while let value = try readNext() { values.append(value) }
        return values
    }

    /// The next value at this level, or nil at the end of the body or container.
    private func readNext() throws(DBusError) -> DBusValue? {
        var type: CChar = 0
        var contents: UnsafePointer<CChar>?
        let peeked = library.peekType(pointer, &type, &contents)
        if peeked < 0 { throw DBusError(errno: peeked, "cannot read a D-Bus message") }
        if peeked == 0 { return nil }
        let code = UInt8(bitPattern: type)
        switch code {
        case UInt8(ascii: "a"), UInt8(ascii: "r"), UInt8(ascii: "e"), UInt8(ascii: "v"):
            let inner = contents.map { String(cString: $0) } ?? ""
            let entered = library.enterContainer(pointer, type, contents)
            if entered < 0 { throw DBusError(errno: entered, "cannot read a D-Bus container") }
            let children = try readAll()
            let exited = library.exitContainer(pointer)
            if exited < 0 { throw DBusError(errno: exited, "cannot leave a D-Bus container") }
            switch code {
            case UInt8(ascii: "a"): return .array(element: inner, children)
            case UInt8(ascii: "r"): return .structure(children)
            case UInt8(ascii: "e"):
                guard children.count == 2 else { throw DBusError(DBusError.invalidReply, "a dictionary entry") }
                return .entry(children[0], children[1])
            default:
                guard children.count == 1 else { throw DBusError(DBusError.invalidReply, "a variant") }
                return .variant(children[0])
            }
        case UInt8(ascii: "s"), UInt8(ascii: "o"), UInt8(ascii: "g"):
            var text: UnsafePointer<CChar>?
            try readBasic(type, &text)
            let string = text.map { String(cString: $0) } ?? ""
            return code == UInt8(ascii: "s")
                ? .string(string) : code == UInt8(ascii: "o") ? .objectPath(string) : .signature(string)
        case UInt8(ascii: "y"): return .byte(try readNumber(type, UInt8(0)))
        case UInt8(ascii: "b"): return .boolean(try readNumber(type, Int32(0)) != 0)
        case UInt8(ascii: "n"): return .int16(try readNumber(type, Int16(0)))
        case UInt8(ascii: "q"): return .uint16(try readNumber(type, UInt16(0)))
        case UInt8(ascii: "i"): return .int32(try readNumber(type, Int32(0)))
        case UInt8(ascii: "u"): return .uint32(try readNumber(type, UInt32(0)))
        case UInt8(ascii: "x"): return .int64(try readNumber(type, Int64(0)))
        case UInt8(ascii: "t"): return .uint64(try readNumber(type, UInt64(0)))
        case UInt8(ascii: "d"): return .double(try readNumber(type, Double(0)))
        case UInt8(ascii: "h"):
            _ = try readNumber(type, Int32(0))
            return .unixFD
        default:
            throw DBusError(DBusError.invalidReply, "unknown D-Bus type \(Character(Unicode.Scalar(code)))")
        }
    }

    private func readNumber<T>(_ type: CChar, _ initial: T) throws(DBusError) -> T {
        var value = initial
        try readBasic(type, &value)
        return value
    }

    private func readBasic<T>(_ type: CChar, _ value: inout T) throws(DBusError) {
        let code = withUnsafeMutablePointer(to: &value) { library.readBasic(pointer, type, $0) }
        if code < 0 { throw DBusError(errno: code, "cannot read a D-Bus value") }
    }
}
