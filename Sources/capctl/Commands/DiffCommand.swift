import ArgumentParser
import CapabilityPolicy
import ConfigurationFiles
import FeatureFlags
import Glibc

/// `capctl diff OLD NEW`: how two policies' gates decide differently (`PolicyDifference`), a
/// review step for a policy change in CI.
struct DiffCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Compare two policies gate by gate: unchanged, added, removed, or decided differently and when.",
        discussion: """
            OLD and NEW are policy files or policy roots (a directory with policy.yaml and policy.d/); with --layers, \
            each is a whole search path: policy roots separated by colons, lowest precedence first, as \
            CAPCTL_POLICY_ROOTS takes them, and at the end user=DIR for a per-user layer (where a final system \
            policy keeps its definitions). Each gate is \
            compared exactly over every status of its capabilities and value of its flags; one that decides \
            differently is shown with an assignment under which it does (give it to check --assume) and both words. \
            Capabilities whose definitions changed are listed too. Exits 0 when nothing decides differently, 1 \
            otherwise, 78 when a policy does not load.
            """)

    @Flag(name: .long, help: "Print JSON.")
    var json = false

    @Flag(
        name: .long,
        help: "OLD and NEW are search paths: ROOT[:ROOT...][:user=DIR], lowest precedence first.")
    var layers = false

    @Argument(help: "The old policy: a file or a policy root.")
    var old: String

    @Argument(help: "The new policy: a file or a policy root.")
    var new: String

    func run() async throws {
        let before = try layers ? Self.load(layers: old) : Self.load(old)
        let after = try layers ? Self.load(layers: new) : Self.load(new)
        let difference = PolicyDifference(old: before, new: after)
        let capabilities = Self.capabilityChanges(before, after)
        if json {
            print(JSONText.string(Self.json(difference, capabilities: capabilities)))
        } else {
            var lines: [String] = []
            for change in difference.gates {
                switch change.kind {
                case .unchanged: lines.append("gate \(change.gate): unchanged")
                case .added: lines.append("gate \(change.gate): added")
                case .removed: lines.append("gate \(change.gate): removed")
                case .decidesDifferently:
                    let example = change.counterexample.map(AnalyzeCommand.assignment) ?? ""
                    lines.append(
                        "gate \(change.gate): decides differently: with \(example): "
                            + "old \(change.words?.old ?? "?"), new \(change.words?.new ?? "?")")
                }
            }
            lines += capabilities
            print(TerminalText.lines(lines))
        }
        if difference.changesDecisions || !capabilities.isEmpty { throw ExitStatus.denied }
    }

    /// The policy of a search path written `ROOT:ROOT...:user=DIR`: each root's files layered in
    /// order, then the per-user layer's, as capctl reads the installed policy.
    static func load(layers: String) throws -> Policy {
        var roots: [String] = []
        var user: String?
        for entry in layers.split(separator: ":", omittingEmptySubsequences: true).map(String.init) {
            guard user == nil else {
                throw CommandFailure(
                    message: "capctl: in \(layers): user=DIR must come last, and once", status: ExitStatus.usage)
            }
            if entry.hasPrefix("user=") {
                user = PolicyContext.absolute(String(entry.dropFirst("user=".count)))
            } else {
                roots.append(PolicyContext.absolute(entry))
            }
        }
        for directory in roots + (user.map { [$0] } ?? []) {
            var info = stat()
            guard stat(directory, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
                throw CommandFailure(message: "capctl: \(directory): no such directory", status: ExitStatus.usage)
            }
        }
        do throws(PolicyErrors) {
            let searchPath = PolicySearchPath(directories: roots, userDirectory: user)
            return try PolicyLoader.load(searchPath: searchPath, environment: PolicyContext.environment)
        } catch {
            throw CommandFailure(lines: error.errors.map(\.description), status: ExitStatus.configuration)
        }
    }

    /// The policy of a file, or of a policy root's files.
    static func load(_ path: String) throws -> Policy {
        let absolute = PolicyContext.absolute(path)
        var info = stat()
        guard stat(absolute, &info) == 0 else {
            throw CommandFailure(message: "capctl: \(absolute): no such file or directory", status: ExitStatus.usage)
        }
        do throws(PolicyErrors) {
            let files =
                info.st_mode & S_IFMT == S_IFDIR
                ? try PolicyLoader.files(in: PolicySearchPath(directories: [absolute])) : [absolute]
            return try PolicyLoader.load(files: files, environment: PolicyContext.environment)
        } catch {
            throw CommandFailure(lines: error.errors.map(\.description), status: ExitStatus.configuration)
        }
    }

    /// Capabilities added, removed, or defined otherwise, as lines.
    static func capabilityChanges(_ old: Policy, _ new: Policy) -> [String] {
        Set(old.capabilities.keys).union(new.capabilities.keys).sorted().compactMap { name in
            switch (old.capabilities[name], new.capabilities[name]) {
            case (nil, _?): return "capability \(name): added"
            case (_?, nil): return "capability \(name): removed"
            case (let before?, let after?):
                if before.kind != after.kind { return "capability \(name): kind \(before.kind) is now \(after.kind)" }
                if before.settings.fingerprint != after.settings.fingerprint {
                    return "capability \(name): settings changed (its gates may decide differently on a host)"
                }
                return nil
            case (nil, nil): return nil
            }
        }
    }

    static func json(_ difference: PolicyDifference, capabilities: [String]) -> FlagValue {
        .structure([
            "gates": .list(
                difference.gates.map { change in
                    var members: [String: FlagValue] = [
                        "gate": .string(change.gate), "change": .string(change.kind.rawValue),
                    ]
                    if let example = change.counterexample {
                        members["counterexample"] = .structure([
                            "capabilities": .structure(example.capabilities.mapValues { .string($0.rawValue) }),
                            "flags": .structure(example.flags),
                        ])
                    }
                    if let words = change.words {
                        members["old"] = .string(words.old)
                        members["new"] = .string(words.new)
                    }
                    return .structure(members)
                }),
            "capabilities": .list(capabilities.map(FlagValue.string)),
        ])
    }
}
