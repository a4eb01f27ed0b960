import FeatureFlags
import Foundation

// The generated names, each with the type its flag's variants have.
let path = CommandLine.arguments.dropFirst().first ?? "app.flags.json"
let flags = FlagStore(files: [path], watchesFiles: false)
let newExport: Bool = flags.value(FlagKeys.newExport, default: false)
let batchSize: Int = flags.value(FlagKeys.batchSize, default: 1)
let color: String = flags.value(FlagKeys.color, default: "none")
print(
    "new-export=\(newExport) batch-size=\(batchSize) color=\(color)",
    "gate=\(GateNames.export) capability=\(CapabilityNames.scratch)")
