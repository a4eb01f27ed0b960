import ArgumentParser

/// The `capctl` command: shows, checks, explains and uses capabilities, flags and gates.
public struct Capctl: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "capctl",
        abstract: "Show, check, explain and use capabilities, feature flags and gates.",
        subcommands: [StatusCommand.self]
    )

    public init() {}
}
