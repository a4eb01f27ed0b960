// The names the Vapor samples of the documentation take as given (Scripts/test-web
// compiles them beside this file, in Samples.swift, which it generates). Nothing here runs.
import CapabilityPolicy
import LinuxPolicy

let store = PolicyStore(files: ["policy.yaml"], environment: .linux)
