import Testing

@testable import FeatureFlags

/// MurmurHash3 x86 32-bit against the reference implementation's published values.
@Suite("MurmurHash3")
struct MurmurHash3Tests {
    @Test(
        "reference vectors",
        arguments: [
            ("", UInt32(0), UInt32(0)),
            ("", 1, 0x514E_28B7),
            ("", 0xFFFF_FFFF, 0x81F1_6F39),
            ("a", 0, 0x3C25_69B2),
            ("abc", 0, 0xB3DD_93FA),
            ("abcd", 0, 0x43ED_676A),
            ("hello", 0, 0x248B_FA47),
            ("Hello, world!", 1234, 0xFAF6_CDB3),
            ("The quick brown fox jumps over the lazy dog", 0, 0x2E4F_F723),
        ])
    func vectors(text: String, seed: UInt32, expected: UInt32) {
        #expect(MurmurHash3.hash32(text.utf8, seed: seed) == expected)
    }
}
