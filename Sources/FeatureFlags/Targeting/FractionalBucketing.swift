/// How `fractional` turns the value it buckets by into a bucket.
///
/// flagd's evaluators are moving from hashing a string to hashing the canonical CBOR encoding of
/// any JSON value (flagd's architecture decision "Harden hashing consistency and add support for
/// non-string attributes in fractional evaluation"; flagd-testbed's `@fractional-v3` scenarios). A
/// user lands in a different bucket under each, so the change must be made everywhere a flag is
/// evaluated at once: choose ``cbor`` when every other evaluator of your flags (flagd, the
/// providers of your other services) hashes CBOR too.
public enum FractionalBucketing: Sendable, Hashable {
    /// MurmurHash3 of the bucketing string's UTF-8 bytes, as flagd's Go evaluator does (testbed's
    /// `@fractional-v2`). A bucketing value that is not a string makes the rule null. The default.
    case stringHash
    /// MurmurHash3 of the bucketing value's canonical CBOR encoding (RFC 8949 4.2.3, length-first
    /// map keys, the shortest float that keeps the value, integral numbers as integers), so a
    /// Boolean, a number, a list or an object can be bucketed by, and every language encodes it
    /// alike (testbed's `@fractional-v3`). The short form buckets by the array
    /// `[flag key, targeting key]`.
    case cbor
}

/// The canonical CBOR encoding `FractionalBucketing.cbor` hashes, of flag values (JSON's data model).
enum CanonicalCBOR {
    static func encode(_ value: FlagValue) -> [UInt8] {
        var bytes: [UInt8] = []
        append(value, to: &bytes)
        return bytes
    }

    private static func append(_ value: FlagValue, to bytes: inout [UInt8]) {
        switch value {
        case .null: bytes.append(0xf6)
        case .bool(let flag): bytes.append(flag ? 0xf5 : 0xf4)
        case .number(let number): appendNumber(number, to: &bytes)
        case .string(let text):
            head(major: 3, UInt64(text.utf8.count), to: &bytes)
            bytes.append(contentsOf: text.utf8)
        case .date(let date): append(.string(date.description), to: &bytes)
        case .list(let items):
            head(major: 4, UInt64(items.count), to: &bytes)
            for item in items { append(item, to: &bytes) }
        case .structure(let members):
            head(major: 5, UInt64(members.count), to: &bytes)
            // Canonical order: shorter encoded keys first, then bytewise.
            let keys = members.keys.map { key -> [UInt8] in
                var encoded: [UInt8] = []
                append(.string(key), to: &encoded)
                return encoded
            }
            let order = keys.indices.sorted { left, right in
                keys[left].count != keys[right].count
                    ? keys[left].count < keys[right].count : keys[left].lexicographicallyPrecedes(keys[right])
            }
            let values = Array(members.values)
            for index in order {
                bytes.append(contentsOf: keys[index])
                append(values[index], to: &bytes)
            }
        }
    }

    /// An integral number within CBOR's integers is one (`1.0` and `1` hash alike, `-0.0` as `0`);
    /// anything else is the shortest float that holds it exactly.
    private static func appendNumber(_ number: Double, to bytes: inout [UInt8]) {
        if number == number.rounded(.towardZero), number >= -0x1p63, number < 0x1p64 {
            if number >= 0 {
                head(major: 0, UInt64(number), to: &bytes)
            } else {
                head(major: 1, UInt64(-number) - 1, to: &bytes)
            }
            return
        }
        let half = Float16(number)
        if Double(half) == number {
            bytes.append(0xf9)
            appendBigEndian(UInt64(half.bitPattern), count: 2, to: &bytes)
        } else if Double(Float(number)) == number {
            bytes.append(0xfa)
            appendBigEndian(UInt64(Float(number).bitPattern), count: 4, to: &bytes)
        } else {
            bytes.append(0xfb)
            appendBigEndian(number.bitPattern, count: 8, to: &bytes)
        }
    }

    private static func head(major: UInt8, _ argument: UInt64, to bytes: inout [UInt8]) {
        let type = major << 5
        switch argument {
        case ..<24: bytes.append(type | UInt8(argument))
        case ...0xff:
            bytes.append(type | 24)
            bytes.append(UInt8(argument))
        case ...0xffff:
            bytes.append(type | 25)
            appendBigEndian(argument, count: 2, to: &bytes)
        case ...0xffff_ffff:
            bytes.append(type | 26)
            appendBigEndian(argument, count: 4, to: &bytes)
        default:
            bytes.append(type | 27)
            appendBigEndian(argument, count: 8, to: &bytes)
        }
    }

    private static func appendBigEndian(_ value: UInt64, count: Int, to bytes: inout [UInt8]) {
        for index in stride(from: count - 1, through: 0, by: -1) {
            bytes.append(UInt8(truncatingIfNeeded: value >> (UInt64(index) * 8)))
        }
    }
}
