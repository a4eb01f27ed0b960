import ArgumentParser
import CapabilityPolicy
import Foundation
import LinuxCapabilities

/// The policy a command works with: the files given with --policy, or those the search path
/// finds (CAPCTL_POLICY_ROOTS replaces the system roots, for tests and packaging).
enum PolicyContext {
    /// The policy files in play.
    static func files(_ options: CommonOptions) -> [String] {
        if !options.policy.isEmpty { return options.policy.map(absolute) }
        return PolicyLoader.files(in: PolicySearchPath(environment: ProcessInfo.processInfo.environment))
    }

    /// Loads the policy, or fails with every error and exit status 78.
    static func load(_ options: CommonOptions, policyOptions: PolicyOptions = PolicyOptions(watchesFlagFiles: false)) throws -> LoadedPolicy {
        do {
            return try LoadedPolicy(PolicyLoader.load(files: files(options)), options: policyOptions)
        } catch {
            throw CommandFailure(message: error.description, status: ExitStatus.configuration)
        }
    }

    static func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    }
}
