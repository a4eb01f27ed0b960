/// One method call, as a client sent it: `{"method": "interface.Method", "parameters": {...},
/// "oneway": bool, "more": bool, "upgrade": bool}` (varlink.org, Method Call).
public struct VarlinkCall: Sendable {
    /// The interface, such as `org.varlink.service`.
    public let interface: String
    /// The method's name within it, such as `GetInfo`.
    public let method: String
    /// The parameters: always an object (empty when the call gave none).
    public let parameters: VarlinkValue
    /// The client wants no reply.
    public let oneway: Bool
    /// The client accepts several replies (`continues`).
    public let more: Bool
    /// The client asks for the connection to leave varlink after the reply.
    public let upgrade: Bool

    /// The fully qualified method name.
    public var qualifiedMethod: String { interface + "." + method }

    /// Reads a call from one message. A message that is not a call object, or a member of the
    /// wrong type, is an error (the connection is then closed: nothing can be replied to).
    package init(message: [UInt8]) throws(VarlinkProtocolError) {
        let value: VarlinkValue
        do throws(VarlinkMessageReader.Failure) {
            value = try VarlinkMessageReader.read(message)
        } catch {
            throw VarlinkProtocolError("the message is not JSON: \(error)")
        }
        guard case .object(let members) = value else { throw VarlinkProtocolError("the message is not an object") }
        var method: String?
        var parameters = VarlinkValue.object([])
        var (oneway, more, upgrade) = (false, false, false)
        for member in members {
            switch (member.key, member.value) {
            case ("method", .string(let value)): method = value
            case ("parameters", .object): parameters = member.value
            case ("parameters", .null): break
            case ("oneway", .bool(let value)): oneway = value
            case ("more", .bool(let value)): more = value
            case ("upgrade", .bool(let value)): upgrade = value
            case ("method", _), ("parameters", _), ("oneway", _), ("more", _), ("upgrade", _):
                throw VarlinkProtocolError("\"\(member.key)\" is \(member.value.describedType)")
            default:
                // Vendor extensions live in members of their own (reverse-domain names): ignored.
                continue
            }
        }
        guard let method else { throw VarlinkProtocolError("the call names no method") }
        guard let dot = method.lastIndex(of: "."), Self.isInterfaceName(method[..<dot]),
            Self.isMemberName(method[method.index(after: dot)...])
        else { throw VarlinkProtocolError("\"\(method)\" is not a fully qualified method name") }
        interface = String(method[..<dot])
        self.method = String(method[method.index(after: dot)...])
        self.parameters = parameters
        (self.oneway, self.more, self.upgrade) = (oneway, more, upgrade)
    }

    /// A reverse-domain interface name: dot-separated parts of lowercase letters, digits and
    /// inner dashes, the first starting with a letter, at least two parts.
    static func isInterfaceName(_ name: Substring) -> Bool {
        // One pass over the bytes, no list of parts: every call's method name is checked.
        let bytes = name.utf8
        guard bytes.count <= 255, let first = bytes.first, first >= 0x61, first <= 0x7A else { return false }
        var parts = 1
        var previous: UInt8 = 0x2E
        for byte in bytes {
            switch byte {
            case 0x2E:
                // An empty part, or one ending in a dash.
                if previous == 0x2E || previous == 0x2D { return false }
                parts += 1
            case 0x2D:
                if previous == 0x2E { return false }
            case 0x61...0x7A, 0x30...0x39: break
            default: return false
            }
            previous = byte
        }
        return parts >= 2 && previous != 0x2E && previous != 0x2D
    }

    /// A method, type or error name: an uppercase letter, then letters and digits.
    static func isMemberName(_ name: Substring) -> Bool {
        guard let first = name.utf8.first, first >= 0x41, first <= 0x5A else { return false }
        return name.utf8.allSatisfy {
            ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39)
        }
    }

    // MARK: Parameters

    /// The string parameter `name`; `InvalidParameter` when it is missing or not a string.
    public func string(_ name: String) throws(VarlinkError) -> String {
        guard case .string(let value)? = parameters[name] else { throw .invalidParameter(name) }
        return value
    }

    /// The boolean parameter `name`; `InvalidParameter` when it is missing or not a boolean.
    public func bool(_ name: String) throws(VarlinkError) -> Bool {
        guard let value = try optionalBool(name) else { throw .invalidParameter(name) }
        return value
    }

    /// The integer parameter `name`; `InvalidParameter` when it is missing or not a whole number.
    public func int(_ name: String) throws(VarlinkError) -> Int64 {
        guard let value = try optionalInt(name, in: Int64.min...Int64.max) else { throw .invalidParameter(name) }
        return value
    }

    /// The number parameter `name` (varlink's `float`: JSON writes 1.0 and 1 alike, so a whole
    /// number counts); `InvalidParameter` when it is missing or not a number.
    public func float(_ name: String) throws(VarlinkError) -> Double {
        switch parameters[name] {
        case .float(let value)?: return value
        case .int(let value)?: return Double(value)
        default: throw .invalidParameter(name)
        }
    }

    /// The string parameter `name` if given (null counts as not given).
    public func optionalString(_ name: String) throws(VarlinkError) -> String? {
        switch parameters[name] {
        case nil, .null?: return nil
        case .string(let value)?: return value
        default: throw .invalidParameter(name)
        }
    }

    /// The boolean parameter `name` if given (null counts as not given).
    public func optionalBool(_ name: String) throws(VarlinkError) -> Bool? {
        switch parameters[name] {
        case nil, .null?: return nil
        case .bool(let value)?: return value
        default: throw .invalidParameter(name)
        }
    }

    /// The integer parameter `name` if given, within `range`.
    public func optionalInt(_ name: String, in range: ClosedRange<Int64>) throws(VarlinkError) -> Int64? {
        switch parameters[name] {
        case nil, .null?: return nil
        case .int(let value)? where range.contains(value): return value
        default: throw .invalidParameter(name)
        }
    }

    /// Refuses any parameter not in `names`: a caller misspelling one gets an error, never a
    /// call that silently ignores what it meant.
    public func allowOnly(_ names: Set<String>) throws(VarlinkError) {
        guard case .object(let members) = parameters else { return }
        if let unknown = members.first(where: { !names.contains($0.key) }) { throw .invalidParameter(unknown.key) }
    }
}

/// A message that breaks the protocol itself: not JSON, not a call. Nothing can be replied to
/// it; the connection is closed.
public struct VarlinkProtocolError: Error, Sendable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
