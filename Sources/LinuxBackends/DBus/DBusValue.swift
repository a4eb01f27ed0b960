/// A D-Bus value with its type, for building method calls and reading replies.
///
/// Dictionaries are arrays of ``entry(_:_:)`` values, as on the wire (`a{ss}`).
indirect enum DBusValue: Sendable, Equatable {
    case byte(UInt8)
    case boolean(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(String)
    case signature(String)
    /// A file descriptor in a reply; only its index is kept, the descriptor is not used.
    case unixFD
    /// An array; `element` is its elements' signature, so empty arrays have a type too.
    case array(element: String, [DBusValue])
    case structure([DBusValue])
    case entry(DBusValue, DBusValue)
    case variant(DBusValue)

    /// The value's D-Bus signature.
    var signature: String {
        switch self {
        case .byte: "y"
        case .boolean: "b"
        case .int16: "n"
        case .uint16: "q"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .signature: "g"
        case .unixFD: "h"
        case .array(let element, _): "a" + element
        case .structure(let members): "(" + members.map(\.signature).joined() + ")"
        case .entry(let key, let value): "{" + key.signature + value.signature + "}"
        case .variant: "v"
        }
    }

    /// `a{ss}`, keys sorted so calls are reproducible.
    static func stringDictionary(_ values: [String: String]) -> DBusValue {
        .array(element: "{ss}", values.sorted { $0.key < $1.key }.map { .entry(.string($0.key), .string($0.value)) })
    }

    /// `a{sv}`, keys sorted.
    static func variantDictionary(_ values: [String: DBusValue]) -> DBusValue {
        .array(element: "{sv}", values.sorted { $0.key < $1.key }.map { .entry(.string($0.key), .variant($0.value)) })
    }

    // MARK: Reading replies

    var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    var booleanValue: Bool? {
        if case .boolean(let flag) = self { return flag }
        return nil
    }

    var unsignedValue: UInt64? {
        switch self {
        case .byte(let value): UInt64(value)
        case .uint16(let value): UInt64(value)
        case .uint32(let value): UInt64(value)
        case .uint64(let value): value
        case .int16(let value): value >= 0 ? UInt64(value) : nil
        case .int32(let value): value >= 0 ? UInt64(value) : nil
        case .int64(let value): value >= 0 ? UInt64(value) : nil
        default: nil
        }
    }

    /// The members of a structure.
    var members: [DBusValue]? {
        if case .structure(let members) = self { return members }
        return nil
    }

    /// A dictionary of `{sX}` entries (string keys), with variants unwrapped; nil for anything else.
    var dictionary: [String: DBusValue]? {
        guard case .array(let element, let entries) = self, element.hasPrefix("{s") else { return nil }
        var result: [String: DBusValue] = [:]
        for entry in entries {
            guard case .entry(.string(let key), let value) = entry else { return nil }
            if case .variant(let inner) = value { result[key] = inner } else { result[key] = value }
        }
        return result
    }
}
