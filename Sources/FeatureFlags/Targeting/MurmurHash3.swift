/// MurmurHash3, x86 32-bit variant: the hash flagd's `fractional` buckets with.
enum MurmurHash3 {
    static func hash32<Bytes: Collection<UInt8>>(_ bytes: Bytes, seed: UInt32 = 0) -> UInt32 {
        let c1: UInt32 = 0xcc9e_2d51
        let c2: UInt32 = 0x1b87_3593
        var hash = seed
        var block: UInt32 = 0
        var shift: UInt32 = 0
        var count = 0
        for byte in bytes {
            block |= UInt32(byte) << shift
            shift += 8
            count += 1
            if shift == 32 {
                hash ^= mixBlock(block, c1, c2)
                hash = (hash << 13 | hash >> 19) &* 5 &+ 0xe654_6b64
                block = 0
                shift = 0
            }
        }
        if shift > 0 { hash ^= mixBlock(block, c1, c2) }
        hash ^= UInt32(truncatingIfNeeded: count)
        hash ^= hash >> 16
        hash = hash &* 0x85eb_ca6b
        hash ^= hash >> 13
        hash = hash &* 0xc2b2_ae35
        hash ^= hash >> 16
        return hash
    }

    private static func mixBlock(_ block: UInt32, _ c1: UInt32, _ c2: UInt32) -> UInt32 {
        var k = block &* c1
        k = k << 15 | k >> 17
        return k &* c2
    }
}
