import FeatureFlags

#if canImport(Glibc)
import Glibc
#endif

/// Finds, checks, reads and layers policy files.
///
/// In each root of the search path, lowest precedence first: `policy.yaml` (or `.yml`,
/// `.json`), then every `*.yaml`, `*.yml` and `*.json` in `policy.d/` in lexical order. A later
/// definition of a capability or gate replaces an earlier one of the same name; flag sources
/// add up. Given explicit files (`--policy`), only those are read, in order.
public enum PolicyLoader {
    /// The policy files to read, in precedence order.
    public static func files(in searchPath: PolicySearchPath) -> [String] {
        var files: [String] = []
        for root in searchPath.directories {
            for name in ["policy.yaml", "policy.yml", "policy.json"] where access(root + "/" + name, F_OK) == 0 {
                files.append(root + "/" + name)
            }
            files += dropIns(root + "/policy.d")
        }
        return files
    }

    private static func dropIns(_ directory: String) -> [String] {
        guard let handle = opendir(directory) else { return [] }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard !name.hasPrefix("."), [".yaml", ".yml", ".json"].contains(where: { name.hasSuffix($0) }) else { continue }
            names.append(name)
        }
        return names.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.map { directory + "/" + $0 }
    }

    /// Reads and layers `files`, then checks every reference. Throws every problem found.
    public static func load(files: [String]) throws(PolicyErrors) -> Policy {
        var policy = Policy()
        var errors: [PolicyError] = []
        var checkedDirectories: Set<String> = []
        for file in files {
            let directory = file.contains("/") ? String(file[..<file.lastIndex(of: "/")!]) : "."
            if checkedDirectories.insert(directory).inserted, let problem = PolicyFileSecurity.problem(with: directory, isDirectory: true) {
                errors.append(PolicyError(problem, file: directory))
                continue
            }
            if let problem = PolicyFileSecurity.problem(with: file, isDirectory: false) {
                errors.append(PolicyError(problem, file: file))
                continue
            }
            let text: String
            do throws(FlagDefinitionError) {
                text = try DefinitionFile.text(file)
            } catch {
                errors.append(PolicyError(error))
                continue
            }
            var reader = PolicyFileReader(file: file)
            let fragment = reader.read(text)
            errors += reader.errors
            policy.apply(fragment)
        }
        errors += PolicyValidator.check(policy)
        guard errors.isEmpty else { throw PolicyErrors(errors: errors) }
        return policy
    }

    /// Loads the files the search path finds.
    public static func load(searchPath: PolicySearchPath) throws(PolicyErrors) -> Policy {
        try load(files: files(in: searchPath))
    }
}
