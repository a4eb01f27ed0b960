// The names the documentation's samples take as given, so that Scripts/check-samples can compile
// each sample as it is shown. Nothing here runs: the samples are compiled, not executed.
import Capabilities
import CapabilityPolicy
import FeatureFlags
import Foundation
import LinuxBackends
import ProcedureCore

// Work a sample gates.
func runBackup() throws {}
func runExport() throws {}
func restoreBackup() throws {}
func enableNewExport() {}
func download() async throws -> Data { Data() }
struct Catalog: Sendable {}
func decode(_ data: Data) throws -> Catalog { Catalog() }
func freeSpace() -> Int { 0 }
func fetchSize(of url: String) async throws -> Int { 0 }
func warmUpCache() async throws {}
func startServing() {}
let urls = ["https://example.com/a.tar", "https://example.com/b.tar"]
struct Invoice: Sendable { let amount: Int }
let files = ["a.txt", "b.txt"]
func copyFile(_ file: String) async throws {}
func send(_ part: Int) async throws {}
struct ProgressBar { func draw(_ fraction: Double) {} }
let bar = ProgressBar()
struct Mirror: Sendable { let url: String }
let metadata = AsyncProcedure<Mirror> { Mirror(url: "https://example.com/catalog.gz") }
func fetch(_ url: String) async throws -> Data { Data() }

// Queues, procedures and conditions.
let queue = ProcedureQueue()
let export = BlockProcedure(name: "export") {}
let operation = BlockProcedure(name: "operation") {}
let fetchMetadata = BlockProcedure(name: "fetch metadata") {}
let fetchDatabase = BlockProcedure(name: "fetch database") {}
let verify = BlockProcedure(name: "verify") {}
let verifies = true
let onACPower = BlockCondition(name: "on AC power") { _ in true }
let batteryLow = BlockCondition(name: "battery low") { _ in false }
let loadUsers = AsyncProcedure<[User]> { [] }
let loadInvoices = AsyncProcedure<[Invoice]> { [] }

// Capabilities, flags and policies.
let pamAdmin = try! PAMLogin(service: "myservice-admin", user: "alice")
let pamLogin = pamAdmin
let adminLogin = pamAdmin
let admin = pamAdmin.keepingAuthorization(for: .seconds(300))
let dataDirectory = try! FileAccess("/var/lib/myservice", access: [.read, .write], kind: .directory)
let data = dataDirectory
let flags = FlagStore(files: ["/etc/myservice/flags.json"])
let api = OpenFeatureAPI.shared
let userID = "user-42"
struct User {
    let id: String
    let tier: String
}
let user = User(id: "user-42", tier: "gold")
let env = ProcessInfo.processInfo.environment
let policy = try! LoadedPolicy(PolicyLoader.load(searchPath: PolicySearchPath(environment: env)))

/// A capability of the samples' own (the Vault kind in Policy.md).
struct VaultPolicy: CapabilityType {
    let policy: String
    init(_ policy: String) { self.policy = policy }
    var name: String { "vault:\(policy)" }
    func status() async throws -> CapabilityStatus { .authorized("granted") }
}

/// The kind PolicyEnvironment's documentation registers.
struct MyVaultKind: CapabilityKind {
    var name: String { "my-vault" }
    var summary: String { "Held while Vault grants a policy." }
    var settings: [CapabilitySetting] { [CapabilitySetting("policy", .string, required: true)] }
    func makeCapability(_ settings: CapabilitySettings, in context: CapabilityKindContext)
        throws(CapabilityConfigurationError) -> any CapabilityType
    {
        VaultPolicy(settings.string("policy")!)
    }
}
