import ArgumentParser
import CapabilityPolicy
import FeatureFlags
import LinuxPolicy

/// `capctl flags`: lists and evaluates feature flags.
struct FlagsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flags",
        abstract: "List and evaluate feature flags.",
        subcommands: [List.self, Get.self, Sources.self]
    )

    /// The flag store: the given flag files, or the policy's flags. A file that cannot be read
    /// at all is an error; problems of single flags are warnings, because those flags evaluate
    /// as flagd evaluates them (the broken ones to PARSE_ERROR) and the rest are usable.
    static func store(files: [String], options: CommonOptions) async throws -> FlagStore {
        let store: FlagStore
        if files.isEmpty {
            store = try await PolicyContext.load(options).flags
        } else {
            store = FlagStore(files: files.map(PolicyContext.absolute), watchesFiles: false, context: .host)
        }
        if !store.loadFailures.isEmpty {
            throw CommandFailure(
                lines: store.loadFailures.map(\.description), status: ExitStatus.configuration
            )
        }
        warn(about: store)
        return store
    }

    /// Prints the problems of single flags to standard error, once each.
    static func warn(about store: FlagStore) {
        for problem in store.problems { Capctl.warn("\(problem)") }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "Every flag with its value, variant and reason.")

        @OptionGroup var options: CommonOptions

        @OptionGroup var flagFiles: FlagFileOptions

        @OptionGroup var flagContext: FlagContextOptions

        func run() async throws {
            let store = try await FlagsCommand.store(files: flagFiles.file, options: options)
            let context = try flagContext.evaluationContext()
            let keys = store.flags.keys.sorted()
            let evaluations = keys.map { store.valueDetails($0, default: .null, context: context) }
            if options.json {
                print(JSONText.string(.list(evaluations.map(JSONText.details))))
                return
            }
            var table = Table(header: ["KEY", "VALUE", "VARIANT", "REASON"], statusColumn: nil)
            for details in evaluations {
                let reason =
                    details.errorCode.map { "\(details.reason.rawValue) \($0.rawValue)" } ?? details.reason.rawValue
                table.rows.append([
                    details.flagKey, details.variant == nil ? "-" : "\(details.value)", details.variant ?? "-", reason,
                ])
            }
            print(table.render())
            let sources = store.remoteSources
            if !sources.isEmpty { print("\n" + FlagSourceReport.table(sources)) }
        }
    }

    struct Sources: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sources",
            abstract: "Each flag service the policy names: URL, state, last success and age, ETag, problem.",
            discussion:
                "States: fresh (the last request succeeded), stale (it failed; the last good flags are used), expired (past max-staleness: the flags are errors), loading (nothing loaded yet). Exits 0 when every source is fresh, 1 otherwise."
        )

        @OptionGroup var options: CommonOptions

        func run() async throws {
            let store = try await FlagsCommand.store(files: [], options: options)
            let sources = store.remoteSources
            if options.json {
                print(JSONText.string(FlagSourceReport.json(sources)))
            } else if sources.isEmpty {
                print("no flag services")
            } else {
                print(FlagSourceReport.table(sources))
            }
            if sources.contains(where: { $0.condition != .fresh }) { throw ExitStatus.denied }
        }
    }

    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "get", abstract: "Evaluate one flag, with OpenFeature's evaluation details.",
            discussion:
                "A --context VALUE that parses as JSON (a number, true or false, a quoted string, an array, an object) takes that type; anything else is a string. Exits 0 when the evaluation has no error, 1 otherwise."
        )

        enum ValueType: String, ExpressibleByArgument, CaseIterable {
            case bool, string, int, double, object
        }

        @OptionGroup var options: CommonOptions

        @Argument(help: "The flag's key.")
        var key: String

        @Option(name: .long, help: "The type to evaluate as (the flag's own type when omitted).")
        var type: ValueType?

        @Option(name: .long, help: "The value to return when the flag cannot be evaluated.")
        var `default`: String?

        @OptionGroup var flagContext: FlagContextOptions

        @OptionGroup var flagFiles: FlagFileOptions

        func run() async throws {
            let store = try await FlagsCommand.store(files: flagFiles.file, options: options)
            let evaluationContext = try flagContext.evaluationContext()
            let fallback = try defaultValue()
            let details: FlagEvaluationDetails<FlagValue>
            switch type {
            case .bool:
                details = store.evaluation(key, default: fallback.boolValue ?? false, context: evaluationContext)
                    .map(FlagValue.bool)
            case .string:
                details = store.evaluation(key, default: fallback.stringValue ?? "", context: evaluationContext).map(
                    FlagValue.string)
            case .int:
                details = store.evaluation(key, default: fallback.integerValue ?? 0, context: evaluationContext).map {
                    .number(Double($0))
                }
            case .double:
                details = store.evaluation(key, default: fallback.numberValue ?? 0, context: evaluationContext).map(
                    FlagValue.number)
            case .object:
                details = store.evaluation(key, default: fallback, context: evaluationContext)
            case nil:
                details = store.valueDetails(key, default: fallback, context: evaluationContext)
            }
            if options.json {
                print(JSONText.string(JSONText.details(details)))
            } else {
                print(TerminalText.escaped(details.description))
            }
            // An unknown name is a usage error, as for gates and capabilities (Docs/capctl.md).
            if details.errorCode == .flagNotFound { throw ExitStatus.usage }
            if details.reason == .error { throw ExitStatus.denied }
        }

        private func defaultValue() throws -> FlagValue {
            guard let text = self.default else { return type == .object ? .structure([:]) : .null }
            let value = FlagContextOptions.parse(text)
            let fits: Bool =
                switch type {
                case .bool: value.boolValue != nil
                case .int: value.integerValue != nil
                case .double: value.numberValue != nil
                case .object:
                    { if case .structure = value { true } else if case .list = value { true } else { false } }()
                case .string: true
                case nil: true
                }
            guard fits else {
                throw CommandFailure(
                    message: "capctl: --default \(text) is not a \(type!.rawValue)", status: ExitStatus.usage)
            }
            return type == .string ? .string(text) : value
        }
    }
}

/// `--file`: flag definition files to use instead of the policy's flags (`flags list`, `flags get`).
struct FlagFileOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Use this flag definition file instead of the policy's flags (repeatable).", valueName: "path"))
    var file: [String] = []
}
