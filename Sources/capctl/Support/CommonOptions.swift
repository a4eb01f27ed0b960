import ArgumentParser

/// Options every subcommand takes.
struct CommonOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp("Use this policy file instead of the search path (repeatable).", valueName: "path"))
    var policy: [String] = []

    @Flag(name: .long, help: "Print JSON instead of a table.")
    var json = false
}
