import FeatureFlags
import FuzzSupport

/// flagd flag files: parsing, then evaluating every flag that loaded with a few contexts, under
/// each `fractional` bucketing (CBOR encodes any value the rules compute).
func fuzzFlags(_ bytes: [UInt8]) {
    guard let text = String(validating: bytes, as: UTF8.self) else { return }
    for format in [FlagFileFormat.json, .yaml] {
        for bucketing in [FractionalBucketing.stringHash, .cbor] {
            fuzzFlags(text, format: format, bucketing: bucketing)
        }
    }
}

private func fuzzFlags(_ text: String, format: FlagFileFormat, bucketing: FractionalBucketing) {
    guard let flagSet = try? FlagSet.parse(text, file: "fuzz", format: format, bucketing: bucketing) else { return }
    let store = FlagStore(flagSets: [flagSet], files: [], watchesFiles: false, context: FlagEvaluationContext())
    for key in flagSet.flags.keys.sorted() {
        for context in FuzzContexts.all {
            _ = store.valueDetails(key, default: .null, context: context)
            _ = store.evaluation(key, default: false, context: context)
            _ = store.evaluation(key, default: 0, context: context)
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func flagFuzzerInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    fuzzFlags(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}

#if !FUZZING
    @main
    struct FlagFuzzerReplay {
        static func main() { FuzzDriver.replay(Array(CommandLine.arguments.dropFirst()), through: fuzzFlags) }
    }
#endif
