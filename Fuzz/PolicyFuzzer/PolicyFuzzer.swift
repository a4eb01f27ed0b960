import CapabilityPolicy
import FuzzSupport
import LinuxBackends
import LinuxPolicy

/// Policy files: any bytes must end in a policy or in positioned errors, never a crash or a hang.
func fuzzPolicy(_ bytes: [UInt8]) {
    guard let text = String(validating: bytes, as: UTF8.self) else { return }
    for file in ["fuzz.yaml", "fuzz.json"] {
        // The Linux kinds, so capability declarations are parsed and checked as capctl does.
        _ = PolicyLoader.parse(text, file: file, environment: .linux)
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func policyFuzzerInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    fuzzPolicy(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}

#if !FUZZING
    @main
    struct PolicyFuzzerReplay {
        static func main() { FuzzDriver.replay(Array(CommandLine.arguments.dropFirst()), through: fuzzPolicy) }
    }
#endif
