import ConfigurationFiles
import FeatureFlags
import FuzzSupport

/// Targeting rules: the input's first line is an evaluation context (a JSON object), the rest a
/// JsonLogic rule. The rule runs under that context and under hostile ones.
func fuzzTargeting(_ bytes: [UInt8]) {
    guard let text = String(validating: bytes, as: UTF8.self) else { return }
    let parts = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
    let rule = parts.count > 1 ? String(parts[1]) : String(parts[0])
    let document = """
        {"flags": {"f": {"state": "ENABLED", "variants": {"a": "a", "b": "b", "c": 3, "t": true},
        "defaultVariant": "a", "targeting": \(rule)}}}
        """
    guard let flagSet = try? FlagSet.parse(document, file: "fuzz", format: .json) else { return }
    let store = FlagStore(flagSets: [flagSet], files: [], watchesFiles: false, context: FlagEvaluationContext())
    var contexts = FuzzContexts.all
    if parts.count > 1, let node = try? JSONDocumentReader.read(String(parts[0]), file: "context"),
        case .structure(let attributes) = node.value
    {
        contexts.append(
            FlagEvaluationContext(targetingKey: attributes["targetingKey"]?.stringValue, attributes: attributes))
    }
    for context in contexts {
        _ = store.valueDetails("f", default: .null, context: context)
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func targetingFuzzerInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    fuzzTargeting(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}

#if !FUZZING
    @main
    struct TargetingFuzzerReplay {
        static func main() { FuzzDriver.replay(Array(CommandLine.arguments.dropFirst()), through: fuzzTargeting) }
    }
#endif
