import ArgumentParser
import Capabilities
import CapabilityPolicy
import ConfigurationFiles
import FeatureFlags
import LinuxBackends
import LinuxPolicy

/// `capctl validate`: checks policy and flag files.
struct ValidateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check policy and flag files, printing every error with file:line:column.",
        discussion: """
            With no PATH, checks the policy the search path (or --policy) finds and its flag files. With \
            --installed, checks the given policy files together with the installed layers, as visudo -cf \
            and systemd-analyze verify do: a PATH that is one of the installed files is checked in its \
            place, any other goes last (highest precedence). Exits 0 when all is well, 78 otherwise.
            """
    )

    @OptionGroup var options: CommonOptions

    @Argument(help: "Policy or flag definition files to check.")
    var paths: [String] = []

    @Flag(
        name: .long,
        help:
            "Check the policy PATHs together with the installed policy (the search path), in the place each would take."
    )
    var installed = false

    func run() async throws {
        if installed, paths.isEmpty || !options.policy.isEmpty {
            throw CommandFailure(
                message: "capctl: --installed checks the PATHs given with the installed policy (and not with --policy)",
                status: ExitStatus.usage)
        }
        var errors: [String] = []
        var checked: [String] = []
        var policyFiles: [String] = []
        // Candidates that are not installed files: their relative paths are read from where they are now.
        var staged: [String] = []
        // The installed files alone, when staged candidates are checked with them: what they change.
        var installedOnly: [String] = []
        var warnings: [String] = []
        var overrides: [String] = []
        var changes: [String] = []
        if paths.isEmpty {
            do throws(PolicyErrors) {
                policyFiles = try PolicyContext.policyFiles(options)
            } catch {
                errors += error.errors.map(\.description)
            }
        } else {
            var policies: [String] = []
            for path in paths.map(PolicyContext.absolute) {
                if Self.isFlagFile(path) {
                    checked.append(path)
                    do throws(ConfigurationError) {
                        // Strict: every problem, including those flagd tolerates at run time.
                        errors += try FlagSet.load(contentsOf: path).problems.map(\.description)
                    } catch {
                        errors.append(error.description)
                    }
                } else {
                    policies.append(path)
                }
            }
            policyFiles = policies
            if installed, !policies.isEmpty {
                do throws(PolicyErrors) {
                    let installedFiles = try PolicyContext.policyFiles(options)
                    staged = policies.filter { !installedFiles.contains($0) }
                    installedOnly = installedFiles
                    policyFiles = Self.layered(policies, into: installedFiles)
                } catch {
                    errors += error.errors.map(\.description)
                }
            }
        }
        var userDirectory: String?
        if paths.isEmpty || installed { userDirectory = PolicyContext.userDirectory(options) }
        if !policyFiles.isEmpty {
            checked += policyFiles
            do throws(PolicyErrors) {
                let policy = try PolicyLoader.load(
                    files: policyFiles, userDirectory: userDirectory, environment: PolicyContext.environment)
                checked += policy.flagFiles
                warnings = await Self.brokenOnThisHost(policy)
                if !staged.isEmpty, !installedOnly.isEmpty,
                    let before = try? PolicyLoader.load(
                        files: installedOnly, userDirectory: userDirectory, environment: PolicyContext.environment)
                {
                    changes = Self.changes(from: before, to: policy, staged: staged)
                }
                overrides =
                    policy.overrides.map(\.description) + Self.flagOverrides(policy.flagSources)
                    + policy.refusedOverrides.map {
                        "\($0.replaced): \($0.kind) \"\($0.name)\" does not replace the system's at \($0.by): the system policy is final"
                    }
                if installed, policy.finalLocation != nil, let userDirectory {
                    let (note, problems) = Self.finalCheck(policy, files: policyFiles, userDirectory: userDirectory)
                    overrides += note.map { [$0] } ?? []
                    errors += problems
                }
                // Strict: every flag's problems too, though the flags load and evaluate as in flagd.
                // A flag service's declaration was checked as it was read; what it serves is not
                // the policy's to validate (nothing is asked over the network here).
                let flags = FlagStore(
                    sources: policy.flagSources.filter { $0.url == nil }, watchesFiles: false,
                    context: FlagEvaluationContext())
                errors += flags.problems.map(\.description)
            } catch {
                errors += error.errors.map(\.description)
            }
        }
        if options.json {
            print(
                JSONText.string(
                    .structure([
                        "valid": .bool(errors.isEmpty), "files": .list(checked.map(FlagValue.string)),
                        "errors": .list(errors.map(FlagValue.string)),
                        "warnings": .list(warnings.map(FlagValue.string)),
                        "overrides": .list(overrides.map(FlagValue.string)),
                        "changes": .list(changes.map(FlagValue.string)),
                    ])))
        } else if errors.isEmpty {
            for warning in warnings { print("warning: " + TerminalText.escaped(warning)) }
            for override in overrides { print("note: " + TerminalText.escaped(override)) }
            for change in changes { print("change: " + TerminalText.escaped(change)) }
            print("ok: \(checked.count) file(s) checked" + (checked.isEmpty ? " (no policy files found)" : ""))
        } else {
            print(TerminalText.lines(errors))
            if !installed, !paths.isEmpty, errors.contains(where: { $0.contains("which no policy file defines") }) {
                print(
                    "note: the files were checked alone; capctl validate --installed PATH checks a drop-in with the installed policy"
                )
            }
            for note in Self.stagedPathNotes(errors: errors, staged: staged) {
                print("note: " + TerminalText.escaped(note))
            }
        }
        if !errors.isEmpty { throw ExitStatus.configuration }
    }

    /// What installing `staged` would change in the decisions of the installed policy `before`
    /// (the whole policy with them is `after`), gate by gate, exactly (`PolicyDifference`).
    static func changes(from before: Policy, to after: Policy, staged: [String]) -> [String] {
        let by = staged.joined(separator: ", ")
        return PolicyDifference(old: before, new: after).gates.compactMap { change in
            switch change.kind {
            case .unchanged: return nil
            case .added: return "gate \(change.gate) is added by \(by)"
            case .removed: return "gate \(change.gate) is removed by \(by)"
            case .decidesDifferently:
                let example = change.counterexample.map(AnalyzeCommand.assignment) ?? ""
                return "gate \(change.gate) decides differently with \(by): with \(example): "
                    + "now \(change.words?.old ?? "?"), then \(change.words?.new ?? "?")"
            }
        }
    }

    /// Under a final system policy, what the per-user layer does to the system's gates: each is
    /// compared exactly (`PolicyDifference`, every status and flag value) with the system layers
    /// alone. None may decide differently (Semantics rule 58: a final policy's gates read the
    /// system's definitions alone, whatever a user writes); one that did would be an error, never
    /// a note. Nothing to say when the per-user layer holds no file.
    static func finalCheck(_ policy: Policy, files: [String], userDirectory: String) -> (
        note: String?, errors: [String]
    ) {
        let systemFiles = files.filter { !$0.hasPrefix(userDirectory + "/") }
        let userCount = files.count - systemFiles.count
        guard userCount > 0,
            let system = try? PolicyLoader.load(
                files: systemFiles, userDirectory: userDirectory, environment: PolicyContext.environment)
        else { return (nil, []) }
        let widened = PolicyDifference(old: system, new: policy).gates.filter { change in
            system.gates[change.gate] != nil && change.kind != .unchanged
        }
        guard widened.isEmpty else {
            return (
                nil,
                widened.map { change in
                    let example = change.counterexample.map(AnalyzeCommand.assignment) ?? ""
                    return "final: the per-user layer changes the system's gate \(change.gate) (\(change.kind)): "
                        + "with \(example): system alone \(change.words?.old ?? "?"), with the user's \(change.words?.new ?? "?")"
                }
            )
        }
        return (
            "final: the per-user layer (\(userCount) file(s)) changes none of the system's \(system.gates.count) gate(s): "
                + "each decides exactly as without it, under every status of its capabilities and value of its flags",
            []
        )
    }

    /// For a candidate that is not yet installed and whose relative paths did not resolve: they
    /// are read from its directory now, not from where it will be installed.
    static func stagedPathNotes(errors: [String], staged: [String]) -> [String] {
        staged.compactMap { path in
            guard let slash = path.lastIndex(of: "/") else { return nil }
            let directory = String(path[..<slash])
            let unresolved = errors.contains { $0.hasPrefix(directory + "/") && !$0.hasPrefix(path + ":") }
            guard unresolved else { return nil }
            return "\(path): relative paths in it are read from \(directory), where it is now, not from where it "
                + "will be installed; copy it there first, or name the files by absolute path"
        }
    }

    /// The installed files with the candidates: one that is an installed file is read in its place,
    /// any other after them all.
    static func layered(_ candidates: [String], into installed: [String]) -> [String] {
        installed + candidates.filter { !installed.contains($0) }
    }

    /// Capabilities that are valid but cannot work on this host because what they rely on is
    /// broken here (a PAM service naming a module that is not installed, a missing service file):
    /// reported as warnings, since the policy may be meant for another machine. Only kinds that
    /// read their status from this host (`readsStatusLocally`) are looked at: nothing is asked, no
    /// daemon and no network.
    static func brokenOnThisHost(_ policy: Policy) async -> [String] {
        guard
            let loaded = try? LoadedPolicy(
                policy, options: PolicyOptions(watchesFlagFiles: false, pollsFlagServices: false))
        else { return [] }
        var warnings: [String] = []
        for (name, declaration) in policy.capabilities.sorted(by: { $0.key < $1.key })
        where policy.environment.kind(named: declaration.kind)?.readsStatusLocally == true {
            guard let capability = try? loaded.capability(named: name) else { continue }
            let known = await capability.resolveStatus()
            guard known.kind == .unavailable, known.cause == .misconfigured else { continue }
            warnings.append(
                "\(declaration.location): capability \"\(name)\" is unavailable on this host: \(known.reason)")
        }
        return warnings
    }

    /// Every flag a later source defines again, in layer order, whatever form either source
    /// takes; files that do not load are reported as errors already.
    static func flagOverrides(_ sources: [FlagSource]) -> [String] {
        flagDefinitions(sources).flatMap { key, locations in
            zip(locations, locations.dropFirst()).map { earlier, later in
                "\(later): flag \"\(key)\" replaces the one at \(earlier)"
            }
        }
    }

    /// Every flag's definitions in the sources, in layer order (the last is in force), by key
    /// order. What a flag service serves is known only when it is asked, which is not done here.
    static func flagDefinitions(_ sources: [FlagSource]) -> [(key: String, locations: [FileLocation])] {
        var definitions: [String: [FileLocation]] = [:]
        for source in sources {
            let flagSet: FlagSet
            switch source {
            case .flags(let inline): flagSet = inline
            case .file(let path):
                guard let loaded = try? FlagSet.load(contentsOf: path) else { continue }
                flagSet = loaded
            case .remote, .http:
                continue
            }
            for (key, flag) in flagSet.flags { definitions[key, default: []].append(flag.location) }
        }
        return definitions.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// A flagd flag file rather than a policy: its top level has no capabilities or gates, and its
    /// `flags` are flag definitions rather than policy flag sources.
    static func isFlagFile(_ path: String) -> Bool {
        guard let text = try? ConfigurationFile.text(path) else { return false }
        let node =
            path.asciiLowercased.hasSuffix(".json")
            ? try? JSONDocumentReader.read(text, file: path) : try? YAMLDocumentReader.read(text, file: path)
        guard let node else { return false }
        if node.member("capabilities") != nil || node.member("gates") != nil { return false }
        if node.member("$schema") != nil || node.member("$evaluators") != nil { return true }
        guard let flags = node.member("flags") else { return false }
        return flags.value.member("files") == nil && flags.value.member("inline") == nil
    }
}
