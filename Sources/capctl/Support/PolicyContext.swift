import ArgumentParser
import CapabilityPolicy
import Foundation
import LinuxBackends

/// The policy a command works with: the files given with --policy, or those the search path
/// finds (CAPCTL_POLICY_ROOTS replaces the system roots, for tests and packaging).
enum PolicyContext {
    /// The policy files in play, or every root and drop-in directory that cannot be trusted.
    static func policyFiles(_ options: CommonOptions) throws(PolicyErrors) -> [String] {
        if !options.policy.isEmpty { return options.policy.map(absolute) }
        return try PolicyLoader.files(in: PolicySearchPath(environment: ProcessInfo.processInfo.environment))
    }

    /// The policy files in play, or a failure with every problem and exit status 78.
    static func files(_ options: CommonOptions) throws -> [String] {
        do throws(PolicyErrors) {
            return try policyFiles(options)
        } catch {
            throw CommandFailure(lines: error.errors.map(\.description), status: ExitStatus.configuration)
        }
    }

    /// Loads the policy, or fails with every error and exit status 78.
    static func load(_ options: CommonOptions, policyOptions: PolicyOptions = PolicyOptions(watchesFlagFiles: false))
        throws -> LoadedPolicy
    {
        let files = try files(options)
        do throws(PolicyErrors) {
            return try LoadedPolicy(PolicyLoader.load(files: files), options: policyOptions)
        } catch {
            throw CommandFailure(lines: error.errors.map(\.description), status: ExitStatus.configuration)
        }
    }

    static func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    }
}
