import Testing

@testable import FeatureFlags

/// The canonical CBOR `FractionalBucketing.cbor` hashes, byte for byte as Python's cbor2 5.9.0
/// writes it with `canonical=True` after flagd-core's number normalization (the vectors were made
/// with it): the shortest heads, integral numbers as integers, the shortest exact float,
/// length-first map keys.
@Suite("Fractional bucketing: canonical CBOR")
struct FractionalBucketingTests {
    static let vectors: [(FlagValue, String)] = [
        (.null, "f6"), (true, "f5"), (false, "f4"), (0, "00"), (23, "17"), (24, "1818"), (255, "18ff"),
        (256, "190100"), (65535, "19ffff"), (65536, "1a00010000"), (4_294_967_296, "1b0000000100000000"),
        (-1, "20"), (-24, "37"), (-25, "3818"), (.number(-0x1p63), "3b7fffffffffffffff"),
        (.number(0x1p64 - 2048), "1bfffffffffffff800"), (1.5, "f93e00"), (0.1, "fb3fb999999999999a"),
        (.number(-0.0), "00"), (1.0, "01"), (3.4028234663852886e+38, "fa7f7fffff"),
        (3.5e38, "fb47f074f8c4d3cd7b"), (1.1754943508222875e-38, "fa00800000"),
        (.number(Double.leastNonzeroMagnitude), "fb0000000000000001"),
        ("", "60"), ("ÿ", "62c3bf"),
        (.string(String(repeating: "a", count: 24)), "7818" + String(repeating: "61", count: 24)),
        ([], "80"), ([1, [2]], "82018102"), ([:], "a0"), (["z": 1, "aa": 2], "a2617a0162616102"),
        (["b": 1, "a": 2], "a2616102616201"), (["aaa": 1, "ÿ": 2], "a262c3bf026361616101"),
    ]

    @Test("values encode as cbor2 encodes them", arguments: vectors)
    func encoding(_ value: FlagValue, _ hex: String) {
        let bytes = CanonicalCBOR.encode(value)
        #expect(
            bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }
                .joined() == hex)
    }

    @Test("CBOR buckets a number, a list and an object; the string hash makes them null; null is null in both")
    func nonStringBucketing() throws {
        let text =
            #"{"flags": {"f": {"state": "ENABLED", "variants": {"a": "a", "b": "b", "none": "none"}, "defaultVariant": "none", "targeting": {"fractional": [{"var": "unit"}, ["a", 50], ["b", 50]]}}}}"#
        let cbor = FlagStore([try FlagSet.parse(text, bucketing: .cbor)])
        let string = FlagStore([try FlagSet.parse(text)])
        for unit: FlagValue in [42, 1.25, true, [1, "x"], ["id": 7]] {
            let context = FlagEvaluationContext(attributes: ["unit": unit])
            #expect(["a", "b"].contains(cbor.value("f", default: "?", context: context)), "\(unit)")
            #expect(string.value("f", default: "?", context: context) == "none", "\(unit)")
        }
        // 1 and 1.0 are one number; key order does not matter.
        #expect(
            cbor.value("f", default: "?", context: .init(attributes: ["unit": ["a": 1, "b": 2]]))
                == cbor.value("f", default: "?", context: .init(attributes: ["unit": ["b": 2, "a": 1.0]])))
        #expect(cbor.evaluation("f", default: "?", context: .init(attributes: ["unit": .null])).value == "none")
    }
}
