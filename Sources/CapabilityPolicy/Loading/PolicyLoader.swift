import ConfigurationFiles
import FeatureFlags
import Glibc

/// Finds, checks, reads and layers policy files.
///
/// In each root of the search path, lowest precedence first: `policy.yaml` (or `.yml`,
/// `.json`), then every `*.yaml`, `*.yml` and `*.json` in `policy.d/` in lexical order. A later
/// definition of a capability or gate replaces an earlier one of the same name; flag sources
/// add up. Given explicit files (`--policy`), only those are read, in order.
///
/// Every directory listed and every file read must pass `TrustedFile`'s checks (owned by root
/// or this user, writable by nobody else, all the way up). A root that does not exist is
/// skipped; anything else that cannot be used (a dangling link, a FIFO, a directory named like
/// a policy file) is an error, never skipped, since a skipped layer changes which gate wins.
public enum PolicyLoader {
    private static let policyNames = ["policy.yaml", "policy.yml", "policy.json"]
    private static let dropInSuffixes = [".yaml", ".yml", ".json"]

    /// The policy files to read, in precedence order. Throws every root or drop-in directory
    /// that cannot be trusted or listed.
    public static func files(in searchPath: PolicySearchPath) throws(PolicyErrors) -> [String] {
        var files: [String] = []
        var errors: [ConfigurationError] = []
        for root in searchPath.directories {
            do throws(TrustedFile.Refusal) {
                guard TrustedFile.exists(root) else { continue }
                let names = Set(try TrustedFile.entries(of: root))
                files += policyNames.filter(names.contains).map { root + "/" + $0 }
                if names.contains("policy.d") { files += try dropIns(root + "/policy.d") }
            } catch {
                errors.append(ConfigurationError(error.reason, file: error.path))
            }
        }
        guard errors.isEmpty else { throw PolicyErrors(errors: errors) }
        return files
    }

    private static func dropIns(_ directory: String) throws(TrustedFile.Refusal) -> [String] {
        let names = try TrustedFile.entries(of: directory).filter { name in
            !name.hasPrefix(".") && dropInSuffixes.contains(where: { name.hasSuffix($0) })
        }
        return names.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.map { directory + "/" + $0 }
    }

    /// Reads and layers `files`, then checks every reference. Throws every problem found. Files
    /// in `userDirectory` (the per-user layer) replace nothing of the system's when a system file
    /// says `final: true`, and may not say it themselves. The files may declare the kinds of
    /// `environment`, and mean what they mean there.
    public static func load(
        files: [String], userDirectory: String? = nil, environment: PolicyEnvironment = .portable
    ) throws(PolicyErrors) -> Policy {
        var policy = Policy()
        policy.environment = environment
        var errors: [ConfigurationError] = []
        var layers: [(file: String, fromUserLayer: Bool, text: String)] = []
        for file in files {
            let text: String
            do throws(ConfigurationError) {
                text = try ConfigurationFile.text(file)
            } catch {
                errors.append(error)
                continue
            }
            var reader = PolicyFileReader(file: file, environment: environment)
            let fragment = reader.read(text)
            errors += reader.errors
            let fromUserLayer = userDirectory.map { file.hasPrefix($0 + "/") } ?? false
            if fromUserLayer, let final = fragment.finalLocation {
                errors.append(
                    ConfigurationError(
                        "\"final\" belongs in the system policy: a file of the per-user layer cannot make it final",
                        at: final))
            }
            policy.apply(fragment, fromUserLayer: fromUserLayer)
            layers.append((file, fromUserLayer, text))
        }
        policy.revision = Policy.revision(of: layers)
        errors += PolicyValidator.check(policy)
        guard errors.isEmpty else { throw PolicyErrors(errors: errors) }
        return policy
    }

    /// Parses and checks one policy file's text as if it were the whole policy (no file is
    /// read but the flag files it names). For fuzzing and tools; ``load(files:)`` is the way to
    /// load a policy.
    package static func parse(
        _ text: String, file: String, environment: PolicyEnvironment = .portable
    ) -> Result<Policy, PolicyErrors> {
        var reader = PolicyFileReader(file: file, environment: environment)
        var policy = Policy()
        policy.environment = environment
        policy.apply(reader.read(text))
        policy.revision = Policy.revision(of: [(file, false, text)])
        let errors = reader.errors + PolicyValidator.check(policy)
        return errors.isEmpty ? .success(policy) : .failure(PolicyErrors(errors: errors))
    }

    /// Loads the files the search path finds, with the kinds of `environment`.
    public static func load(
        searchPath: PolicySearchPath, environment: PolicyEnvironment = .portable
    ) throws(PolicyErrors) -> Policy {
        try load(files: files(in: searchPath), userDirectory: searchPath.userDirectory, environment: environment)
    }
}
