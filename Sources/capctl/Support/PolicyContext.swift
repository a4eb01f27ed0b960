import ArgumentParser
import CapabilityPolicy
import ConfigurationFiles
import FlagSourceClient
import Glibc
import LinuxBackends
import LinuxPolicy

/// The policy a command works with: the files given with --policy, or those the search path
/// finds (CAPCTL_POLICY_ROOTS replaces the system roots, for tests and packaging).
enum PolicyContext {
    /// What capctl reads policies with: the Linux kinds and context, and flag services followed by
    /// its helper process.
    static let environment: PolicyEnvironment = {
        var environment = PolicyEnvironment.linux
        environment.httpFlagSource = { FlagSourceProcess($0) }
        return environment
    }()

    /// The policy files in play, or every root and drop-in directory that cannot be trusted. A
    /// `CAPCTL_POLICY_ROOTS` that names no directory that exists is an error: a mistyped root
    /// would otherwise read as "no policy" and every gate would be unknown.
    static func policyFiles(_ options: CommonOptions) throws(PolicyErrors) -> [String] {
        try policyFiles(given: options.policy)
    }

    /// The files given (with --policy), or those of the search path.
    static func policyFiles(given: [String]) throws(PolicyErrors) -> [String] {
        if !given.isEmpty { return given.map(absolute) }
        if let roots = ProcessEnvironment[PolicySearchPath.rootsVariable] {
            let named = roots.split(separator: ":").map(String.init).filter { !$0.isEmpty }
            if !named.contains(where: TrustedFile.exists) {
                let list = named.isEmpty ? "nothing" : named.map { "\"\($0)\"" }.joined(separator: ", ")
                throw PolicyErrors(errors: [
                    ConfigurationError(
                        "\(PolicySearchPath.rootsVariable) names no directory that exists (it names \(list))")
                ])
            }
        }
        return try PolicyLoader.files(in: ProcessEnvironment.searchPath)
    }

    /// The per-user layer of the search path, unless --policy replaces the search.
    static func userDirectory(_ options: CommonOptions) -> String? {
        userDirectory(given: options.policy)
    }

    private static func userDirectory(given: [String]) -> String? {
        given.isEmpty ? ProcessEnvironment.searchPath.userDirectory : nil
    }

    /// The policy files in play, or a failure with every problem and exit status 78.
    static func files(_ options: CommonOptions) throws -> [String] {
        try files(given: options.policy)
    }

    private static func files(given: [String]) throws -> [String] {
        do throws(PolicyErrors) {
            return try policyFiles(given: given)
        } catch {
            throw CommandFailure(lines: error.errors.map(\.description), status: ExitStatus.configuration)
        }
    }

    /// The policy's declarations alone, for a command that decides nothing (analyze): no
    /// capability is built and no flag is read. Fails with every error and exit status 78.
    static func declarations(_ options: CommonOptions) throws -> Policy {
        let files = try files(given: options.policy)
        do throws(PolicyErrors) {
            return try PolicyLoader.load(
                files: files, userDirectory: userDirectory(given: options.policy), environment: environment)
        } catch {
            throw CommandFailure(lines: error.errors.map(\.description), status: ExitStatus.configuration)
        }
    }

    /// Loads the policy, or fails with every error and exit status 78. A command that evaluates
    /// once asks each flag service whose flags are older than its interval first (the last good
    /// copy on disk answers otherwise); one that watches follows them.
    static func load(
        _ options: CommonOptions,
        policyOptions: PolicyOptions = PolicyOptions(watchesFlagFiles: false, pollsFlagServices: false)
    )
        async throws -> LoadedPolicy
    {
        try await load(policyFiles: options.policy, policyOptions: policyOptions)
    }

    /// Loads the policy of the files given with --policy (or of the search path when none were).
    /// When only the gates `deciding` are decided and none of them reads a flag, no flag service
    /// is started or waited for: an unrelated service never delays a decision.
    static func load(
        policyFiles given: [String], policyOptions: PolicyOptions, deciding: [String]? = nil,
        environment: PolicyEnvironment = PolicyContext.environment
    ) async throws -> LoadedPolicy {
        let files = try files(given: given)
        var policyOptions = policyOptions
        if policyOptions.keptLoginRecords == nil { policyOptions.keptLoginRecords = keptLoginRecords() }
        let loaded: LoadedPolicy
        do throws(PolicyErrors) {
            let policy = try PolicyLoader.load(
                files: files, userDirectory: userDirectory(given: given), environment: environment)
            if let deciding, !policy.readsFlags(deciding: deciding) { policyOptions.startsFlagServices = false }
            loaded = try LoadedPolicy(policy, options: policyOptions)
        } catch {
            throw CommandFailure(lines: error.errors.map(\.description), status: ExitStatus.configuration)
        }
        if !policyOptions.pollsFlagServices { await loaded.flags.refreshRemoteSources(onlyIfDue: true) }
        return loaded
    }

    /// Where logins with `keep:` outlive capctl: root's records in /run/capctl/keep; another
    /// user's in a directory of their own (`KeptLoginRecords.forUser`: the runtime directory,
    /// else the home's .cache; none, and `authorize` says why). `CAPCTL_KEEP_DIRECTORY` names
    /// another directory (tests), and only with it may the boot id (`CAPCTL_KEEP_BOOT_ID`, a file)
    /// and the clock (`CAPCTL_KEEP_CLOCK_OFFSET`, seconds added) be replaced, so the system's
    /// records cannot be stretched through the environment.
    static func keptLoginRecords() -> KeptLoginRecords {
        // Never for the system's directory, under whatever name: a clock moved back through the
        // environment would bring its expired records back to life.
        if let directory = ProcessEnvironment["CAPCTL_KEEP_DIRECTORY"], directory.hasPrefix("/"),
            realpath(directory, nil).map({ resolved in
                defer { free(resolved) }
                return String(cString: resolved) != KeptLoginRecords.systemDirectory
            }) ?? true
        {
            let offset = Int64(ProcessEnvironment["CAPCTL_KEEP_CLOCK_OFFSET"] ?? "0") ?? 0
            return KeptLoginRecords(
                directory: directory,
                bootIDPath: ProcessEnvironment["CAPCTL_KEEP_BOOT_ID"] ?? "/proc/sys/kernel/random/boot_id",
                clock: { KeptLoginRecords.bootTime().map { $0 &+ offset &* 1_000_000_000 } })
        }
        return KeptLoginRecords.forUser(uid: geteuid(), runtimeDirectory: ProcessEnvironment["XDG_RUNTIME_DIR"])
    }

    static func absolute(_ path: String) -> String {
        guard !path.hasPrefix("/"), let directory = ProcessEnvironment.currentDirectory else { return path }
        return directory + "/" + path
    }
}
