import Locking

/// How many authorization requests have asked, per serialization key, so that a request can
/// tell whether another one asked since its gate read the status. If none did, the gate's read
/// is still what the request would read, and is handed on instead (one read per phase); if one
/// did, it may have changed what the status reads (a token written, a login kept), and is read
/// again.
///
/// Keys share 256 counters by hash, so the table never grows with the number of subjects a
/// service sees; two keys in one bucket only cost a read that was not needed. Package-visible for
/// the tests, which tell such a read from a lost hand-off by the count of `key`'s bucket.
package enum AuthorizationTurns {
    private static let counts = Lock([UInt64](repeating: 0, count: 256))

    /// The count for `key` now: take it before reading the status.
    package static func current(_ key: String) -> UInt64 {
        let bucket = bucket(key)
        return counts.withLock { $0[bucket] }
    }

    /// A request of `key` asked (whatever it decided).
    static func asked(_ key: String) {
        let bucket = bucket(key)
        counts.withLock { $0[bucket] &+= 1 }
    }

    private static func bucket(_ key: String) -> Int {
        Int(UInt(bitPattern: key.hashValue) % 256)
    }
}
