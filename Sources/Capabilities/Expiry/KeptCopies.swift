import CPlatform
import Locking

/// A kept authorization, copied once per processor (up to 64): a check locks and reads the copy
/// of the processor it runs on, so gates checked on every worker at once meet on no shared lock
/// and no shared reference count (each copy's reason is a string of its own). Which copy a check
/// reads is only a hint for speed: every copy holds the same kept authorization, each behind its
/// own lock, and the owner writes all of them while holding its own lock, so writers never
/// interleave and a revocation is seen by every check that starts after it returns.
final class KeptCopies: @unchecked Sendable {
    // Each copy on a 128-byte block of its own, so no two share a cache line (or its neighbour,
    // which the processor prefetches). Unchecked Sendable: the copies are only reached through
    // their locks.
    private static let stride = 128
    private let copies: UnsafeMutableRawPointer
    private let mask: Int

    private typealias Copy = Lock<KeptAuthorizationState.Kept?>

    init() {
        precondition(MemoryLayout<Copy>.size <= Self.stride)
        var count = 1
        while count < min(Int(cplatform_processor_count()), 64) { count *= 2 }
        mask = count - 1
        copies = .allocate(byteCount: count * Self.stride, alignment: Self.stride)
        for index in 0..<count {
            (copies + index * Self.stride).bindMemory(to: Copy.self, capacity: 1).initialize(to: Copy(nil))
        }
    }

    deinit {
        for index in 0...mask { copy(index).deinitialize(count: 1) }
        copies.deallocate()
    }

    private func copy(_ index: Int) -> UnsafeMutablePointer<Copy> {
        (copies + index * Self.stride).assumingMemoryBound(to: Copy.self)
    }

    /// The kept status at `now` (nanoseconds on the owner's timeline); `expired` when it ran out.
    func read(at now: Int64) -> (status: CapabilityStatus?, expired: Bool) {
        copy(Int(cplatform_current_processor()) & mask).pointee.withLock { kept in
            // Read in place: binding the kept value first would copy the status twice.
            guard let expiry = kept?.expiry else { return (nil, false) }
            guard now < expiry else { return (nil, true) }
            return (kept?.status, false)
        }
    }

    /// The kept status's reason at `now` when `requirement` is met by it; nil when nothing is
    /// kept, it ran out, or it does not meet it. Nothing but that rule runs under the copy's lock.
    func reason(at now: Int64, meeting requirement: GrantRequirement) -> String? {
        copy(Int(cplatform_current_processor()) & mask).pointee.withLock { kept in
            // Read in place, as `read(at:)` does: binding the kept value would copy the status.
            guard let expiry = kept?.expiry, now < expiry, let kind = kept?.status.kind,
                requirement.isMet(kind: kind, grants: kept?.status.grants ?? [])
            else { return nil }
            return kept?.status.reason
        }
    }

    /// Replaces every copy (nil forgets the kept authorization). Call with the owner's lock held.
    func store(_ kept: KeptAuthorizationState.Kept?) {
        for index in 0...mask {
            var own = kept
            if let reason = kept?.status.reason { own?.status.reason = Self.separateCopy(of: reason) }
            copy(index).pointee.withLock { $0 = own }
        }
    }

    /// `text` in storage of its own (short strings are stored inline anyway).
    private static func separateCopy(of text: String) -> String {
        var utf8 = Array(text.utf8)
        return utf8.withUnsafeMutableBufferPointer { bytes in
            String(unsafeUninitializedCapacity: bytes.count) { buffer in
                _ = buffer.initialize(fromContentsOf: bytes)
                return bytes.count
            }
        }
    }
}
